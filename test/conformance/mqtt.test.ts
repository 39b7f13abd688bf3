import { runMqtt } from '../support/mqtt-target.js';
import { brokerAt, transportConformance } from './transport-suite.js';

const mqtt = await runMqtt();

// MQTT keeps nothing for a shared subscription before it exists (retainsUnconsumed: false)
// and spreads a group's messages without regard to keys (orderedByKey: false); nacks are
// redelivered by the transport itself (redelivery: true).
transportConformance({
  name: 'mqtt',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true },
  expectedBroker: brokerAt(mqtt.url),
  connect: () => mqtt.transport(),
});
