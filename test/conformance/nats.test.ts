import { NatsTestServer } from '../support/nats-target.js';
import { transportConformance } from './transport-suite.js';

const server = new NatsTestServer();

transportConformance({
  name: 'nats (core)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true },
  setup: () => server.start(),
  connect: () => server.transport(),
  teardown: () => server.stop(),
});
