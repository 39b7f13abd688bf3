import { KafkaTestServer } from '../support/kafka-target.js';
import { transportConformance } from './transport-suite.js';

const server = new KafkaTestServer();

transportConformance({
  name: 'kafka',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true },
  setup: () => server.start(),
  // The suite's probes leave deliveries unsettled when they close; closing without waiting
  // for them keeps it fast. Draining on close is covered in test/integration/kafka-transport.
  connect: () => server.transport({ clientId: 'conformance', drainTimeoutMs: 0 }),
  teardown: () => server.stop(),
});
