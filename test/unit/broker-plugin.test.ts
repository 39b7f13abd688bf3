import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../src/logger.js';
import { noMetrics } from '../../src/observability/metrics.js';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { builtinTransports } from '../../transports/plugins.js';
import { brokerPlugin } from '../../transports/shared/broker-plugin.js';
import { topicRouteFields } from '../../transports/shared/topic-route.js';

const secrets = createSecretResolver({ env: { PASS: 'secret' } });
const context: TransportPluginContext = {
  agentId: 'billing',
  clientId: 'billing',
  logger: silentLogger,
  metrics: noMetrics,
  resolveSecret: (ref) => secrets.resolve(ref),
  shared: new Map(),
};

const pluginOf = (kind: string): TransportPlugin => builtinTransports.find((plugin) => plugin.kind === kind)!;

/** Each broker's own endpoint, one the same broker spelled otherwise, and another broker. */
const endpoints = [
  { kind: 'nats', field: 'servers', own: ['nats://a:4222', 'nats://b:4222'], same: ['nats://b:4222', 'nats://a:4222'], other: 'nats://c:4222' },
  { kind: 'kafka', field: 'brokers', own: ['k1:9092', 'k2:9092'], same: ['k2:9092', 'k1:9092'], other: ['k3:9092'] },
  { kind: 'amqp', field: 'url', own: 'amqp://a:pw@rabbit:5672/agents', same: 'amqp://b:other@rabbit:5672/agents', other: 'amqp://rabbit-2:5672/agents' },
  { kind: 'mqtt', field: 'url', own: 'mqtt://mosquitto:1883', same: 'mqtt://mosquitto:1883', other: 'mqtt://elsewhere:1883' },
  { kind: 'sqs', field: 'endpoint', own: 'http://elasticmq:9324', same: 'http://elasticmq:9324', other: 'http://localstack:4566' },
] as const;

describe('broker plug-in', () => {
  it.each(endpoints)('broker plug-in - $kind: a route naming another broker is refused on its field; the same broker, or none, passes', ({ kind, field, own, same, other }) => {
    const plugin = pluginOf(kind);
    expect(plugin.checkRoute?.({ [field]: same }, { [field]: own })).toBeUndefined();
    expect(plugin.checkRoute?.({}, { [field]: own })).toBeUndefined();
    expect(plugin.checkRoute?.({ [field]: other }, undefined)).toBeUndefined();
    const mismatch = plugin.checkRoute?.({ [field]: other }, { [field]: own });
    expect(mismatch?.field).toBe(field);
    expect(mismatch?.message).toContain(`is not where this agent connects for ${kind}`);
  });

  it.each(endpoints)('broker plug-in - $kind: requests go to the topic the route names, else the default', ({ kind }) => {
    const plugin = pluginOf(kind);
    expect(plugin.requestsTopic?.({ requestsTopic: 'team.billing.in' })).toBe('team.billing.in');
    expect(plugin.requestsTopic?.({})).toBeUndefined();
  });

  it('broker plug-in - create makes the transport from the options the config stands for', async () => {
    const bus = new MemoryBus();
    const seen: unknown[] = [];
    const plugin = brokerPlugin({
      kind: 'test',
      summary: 'a broker for this test',
      configSchema: z.strictObject({ url: z.string(), passwordRef: z.string() }),
      routeSchema: z.strictObject({ ...topicRouteFields, url: z.string().optional() }),
      topicsField: 'topics',
      optionsFromConfig: async (config, pluginContext) => ({ url: config.url, password: (await pluginContext.resolveSecret(config.passwordRef)).reveal() }),
      transport: (options) => {
        seen.push(options);
        return memoryTransport({ bus });
      },
      endpoint: { field: 'url', of: (settings) => settings.url },
    });
    const transport = await plugin.create({ url: 'test://broker', passwordRef: '${env:PASS}' }, context);
    expect(seen).toEqual([{ url: 'test://broker', password: 'secret' }]);
    await transport.close();
    expect(plugin).toMatchObject({ kind: 'test', summary: 'a broker for this test', topicsField: 'topics' });
  });
});
