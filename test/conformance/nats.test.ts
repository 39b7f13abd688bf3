import { runNats } from '../support/nats-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const nats = await runNats();

transportConformance({
  name: 'nats (core)',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true },
  expectedBroker: brokerAt(nats.url),
  connect: () => nats.transport(),
});
