import { runKafka } from '../support/kafka-target.js';
import { transportConformance } from './transport-suite.js';

const kafka = await runKafka();

transportConformance({
  name: 'kafka',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true },
  connect: () => kafka.transport({ clientId: 'conformance' }),
});
