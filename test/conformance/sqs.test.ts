import { runSqs } from '../support/sqs-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const sqs = await runSqs();

// Fan-out is SNS-to-SQS, which the transport does not fake: declared, not skipped silently.
transportConformance({
  name: 'sqs (standard queues)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true, fanOut: false },
  expectedBroker: brokerAt(sqs.endpoint),
  connect: () => sqs.transport(),
});
