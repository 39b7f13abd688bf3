import { z } from 'zod';
import { secretRefSchema } from '../../src/secrets/index.js';
import { topicRouteFields } from '../shared/topic-route.js';

const count = z.int().min(1);

/** capabilities.yaml `transports.mqtt`; MqttTransportOptions takes the same fields. */
export const mqttConfigSchema = z.strictObject({
  /** `mqtt://host:1883` or `mqtts://host:8883`. */
  url: z.string().min(1),
  /** The MQTT client id, which names the persistent session: unique per replica, the same across its restarts. Default `<agent id>@<host name>`. */
  clientId: z.string().min(1).max(65535).optional(),
  /** Prepended to every MQTT topic (`prod/`). */
  topicPrefix: z.string().optional(),
  /** How long the broker keeps the session (subscriptions, queued messages) while the agent is away. Default 86,400 s. */
  sessionExpiryS: z.int().min(0).max(4_294_967_295).optional(),
  /** QoS 1 messages the broker may send before the transport acks them (MQTT 5 receive maximum). Default 65,535. */
  receiveMaximum: z.int().min(1).max(65_535).optional(),
  maxInflight: count.optional(),
  connectTimeoutMs: count.optional(),
  keepaliveS: z.int().min(0).max(65_535).optional(),
  username: z.string().min(1).optional(),
  passwordRef: secretRefSchema.optional(),
});
export type MqttTransportConfig = z.infer<typeof mqttConfigSchema>;

/** rpc-peers.yaml `kind: mqtt` route: the peer's inbox topic and the broker it listens on (checked against ours). */
export const mqttRouteSchema = z.strictObject({
  ...topicRouteFields,
  url: z.string().min(1).optional(),
});
export type MqttRouteConfig = z.infer<typeof mqttRouteSchema>;
