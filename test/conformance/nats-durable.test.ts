import { runNats } from '../support/nats-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const nats = await runNats();

transportConformance({
  name: 'nats (durable JetStream)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true },
  expectedBroker: brokerAt(nats.url),
  connect: () => nats.transport({ durable: { storage: 'memory', ackWaitMs: 5_000 } }),
});
