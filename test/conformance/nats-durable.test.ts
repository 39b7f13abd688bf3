import { NatsTestServer } from '../support/nats-target.js';
import { transportConformance } from './transport-suite.js';

const server = new NatsTestServer();

transportConformance({
  name: 'nats (durable JetStream)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: true, remoteSubscribe: true },
  setup: () => server.start(),
  connect: () => server.transport({ durable: { storage: 'memory', ackWaitMs: 5_000 } }),
  teardown: () => server.stop(),
});
