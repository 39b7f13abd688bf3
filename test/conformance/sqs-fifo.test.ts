import { runSqs } from '../support/sqs-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const sqs = await runSqs();

// FIFO queues: MessageGroupId is the message key, so order per key is claimed (and tested).
transportConformance({
  name: 'sqs (FIFO queues)',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true, fanOut: false },
  expectedBroker: brokerAt(sqs.endpoint),
  connect: () => sqs.transport({ fifo: true }),
});
