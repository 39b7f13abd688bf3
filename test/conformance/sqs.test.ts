import { runSqs } from '../support/sqs-target.js';
import { transportConformance } from './transport-suite.js';

const sqs = await runSqs();

// Fan-out is SNS-to-SQS, which the transport does not fake: declared, not skipped silently.
transportConformance({
  name: 'sqs (standard queues)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true, fanOut: false },
  connect: () => sqs.transport(),
});
