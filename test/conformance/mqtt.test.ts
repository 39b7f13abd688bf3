import { runMqtt } from '../support/mqtt-target.js';
import { transportConformance } from './transport-suite.js';

const mqtt = await runMqtt();

// MQTT keeps nothing for a shared subscription before it exists (retainsUnconsumed: false)
// and spreads a group's messages without regard to keys (orderedByKey: false); nacks are
// redelivered by the transport itself (redelivery: true).
transportConformance({
  name: 'mqtt',
  expectedTraits: { redelivery: true, orderedByKey: false, retainsUnconsumed: false, remoteSubscribe: true },
  connect: () => mqtt.transport(),
});
