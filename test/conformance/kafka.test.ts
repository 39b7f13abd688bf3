import { KafkaTestServer } from '../support/kafka-target.js';
import { transportConformance } from './transport-suite.js';

const server = new KafkaTestServer();

transportConformance({
  name: 'kafka',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true },
  setup: () => server.start(),
  connect: () => server.transport({ clientId: 'conformance' }),
  teardown: () => server.stop(),
});
