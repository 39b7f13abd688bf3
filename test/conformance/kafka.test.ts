import { runKafka } from '../support/kafka-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const kafka = await runKafka();

transportConformance({
  name: 'kafka',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true },
  // kafkajs does not say which broker it bootstrapped from: the first listed.
  expectedBroker: brokerAt(`kafka://${kafka.brokers[0]!}`),
  connect: () => kafka.transport({ clientId: 'conformance' }),
});
