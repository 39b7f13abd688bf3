import { hostname } from 'node:os';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml } from '../../src/yaml/load-yaml.js';
import { transportsConfigSchema } from '../../src/config/transports-config.js';
import { silentLogger } from '../../src/logger.js';
import { noMetrics } from '../../src/observability/metrics.js';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import { mqttOptionsFromConfig, mqttTopicOf, mqttTransport, type MqttTransportConfig } from '../../transports/mqtt/index.js';
import { builtinTransports } from '../../transports/plugins.js';
import { isRpcErrorWithCode } from '../support/assertions.js';

const secrets = createSecretResolver({ env: { MQTT_PASS: 'mqtt-secret' } });
const context = { clientId: 'billing', logger: silentLogger, metrics: noMetrics, resolveSecret: (ref: string) => secrets.resolve(ref, tmpdir()) };
const file = join(tmpdir(), 'capabilities.yaml');
const transportsOf = (yaml: string): Record<string, unknown> => parseYaml(file, yaml, z.object({ transports: transportsConfigSchema(builtinTransports) })).value.transports;

describe('mqtt plug-in', () => {
  it('mqtt plug-in - a YAML config maps to the transport options, the password resolved, the session named after agent and host', async () => {
    const { mqtt } = transportsOf(`
transports:
  mqtt:
    url: mqtt://broker:1883
    topicPrefix: prod/
    sessionExpiryS: 600
    receiveMaximum: 100
    username: billing
    passwordRef: "\${env:MQTT_PASS}"
`) as { mqtt: MqttTransportConfig };
    const options = await mqttOptionsFromConfig(mqtt, context);
    expect(options).toMatchObject({ url: 'mqtt://broker:1883', clientId: `billing@${hostname()}`, topicPrefix: 'prod/', sessionExpiryS: 600, receiveMaximum: 100, username: 'billing', password: 'mqtt-secret' });
    expect(options).not.toHaveProperty('passwordRef');
  });

  it('mqtt plug-in - an inline password and an unknown field are refused naming the field', () => {
    expect(() => transportsOf('transports:\n  mqtt: { url: "mqtt://b:1883", password: hunter2 }')).toThrow(/transports\.mqtt: Unrecognized key: "password"/);
    expect(() => transportsOf('transports:\n  mqtt: { url: "mqtt://b:1883", receiveMaximum: 70000 }')).toThrow(/transports\.mqtt\.receiveMaximum/);
  });

  it('mqtt transport - bad options fail fast naming the field', () => {
    expect(() => mqttTransport({ url: 'http://b:1883' })).toThrow(TypeError);
    expect(() => mqttTransport({ url: 'mqtt://b:1883', topicPrefix: 'a/#/' })).toThrow(TypeError);
    expect(() => mqttTransport({ url: 'mqtt://b:1883', maxInflight: 0 })).toThrow(RangeError);
  });

  it('mqtt transport - a missing mqtt package is a typed EAGENTRPC_MISSING_PACKAGE error', async () => {
    const transport = mqttTransport({ url: 'mqtt://127.0.0.1:1', loadModule: () => Promise.reject(Object.assign(new Error('Cannot find package mqtt'), { code: 'ERR_MODULE_NOT_FOUND' })) });
    expect(isRpcErrorWithCode(await transport.connect().catch((e: unknown) => e), 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
  });

  it('mqtt transport - a broker that cannot be reached fails connect with EAGENTRPC_CONNECT_FAILED', async () => {
    const transport = mqttTransport({ url: 'mqtt://127.0.0.1:1', clientId: 'nobody-home', connectTimeoutMs: 300 });
    expect(isRpcErrorWithCode(await transport.connect().catch((e: unknown) => e), 'EAGENTRPC_CONNECT_FAILED')).toBe(true);
    await transport.close();
  });

  it('mqtt topics - dots become levels behind the prefix; wildcards are refused', () => {
    expect(mqttTopicOf('prod/', 'agents.billing.requests')).toBe('prod/agents/billing/requests');
    expect(() => mqttTopicOf('', 'agents.#')).toThrow(expect.objectContaining({ code: 'EAGENTRPC_PUBLISH_FAILED' }));
  });
});
