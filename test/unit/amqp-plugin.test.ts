import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml } from '../../src/yaml/load-yaml.js';
import { transportsConfigSchema } from '../../src/config/transports-config.js';
import { silentLogger } from '../../src/logger.js';
import { noMetrics } from '../../src/observability/metrics.js';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import { amqpOptionsFromConfig, amqpTransport, amqpTransportPlugin, type AmqpTransportConfig } from '../../transports/amqp/index.js';
import { builtinTransports } from '../../transports/plugins.js';
import { isRpcErrorWithCode } from '../support/assertions.js';

const secrets = createSecretResolver({ env: { AMQP_PASS: 'p@ss/word' } });
const context = { logger: silentLogger, metrics: noMetrics, resolveSecret: (ref: string) => secrets.resolve(ref) };

function transportsOf(yaml: string): Record<string, unknown> {
  return parseYaml('/etc/agent/capabilities.yaml', yaml, z.object({ transports: transportsConfigSchema(builtinTransports) })).value.transports;
}

describe('transport plug-ins - amqp', () => {
  it('amqp plug-in - a YAML config maps to the transport options, the password resolved', async () => {
    const { amqp } = transportsOf(`
transports:
  amqp:
    url: amqp://billing@rabbit.internal:5672/agents
    passwordRef: "\${env:AMQP_PASS}"
    prefix: prod.
    maxInflight: 32
    maxDeliver: 3
    connectTimeoutMs: 5000
`) as { amqp: AmqpTransportConfig };
    const options = await amqpOptionsFromConfig(amqp, context);
    expect(options).toMatchObject({ url: 'amqp://billing@rabbit.internal:5672/agents', password: 'p@ss/word', prefix: 'prod.', maxInflight: 32, maxDeliver: 3, connectTimeoutMs: 5000 });
  });

  it('amqp plug-in - an inline password field, a non-AMQP URL and an unknown field are refused naming the field', () => {
    const errorOf = (yaml: string): string => {
      try {
        transportsOf(yaml);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(errorOf('transports:\n  amqp: { url: amqp://r:5672, passwordRef: hunter2 }')).toMatch(/transports\.amqp\.passwordRef/);
    expect(errorOf('transports:\n  amqp: { url: http://r:5672 }')).toMatch(/transports\.amqp\.url/);
    expect(errorOf('transports:\n  amqp: { url: amqp://r:5672, exchange: x }')).toMatch(/transports\.amqp/);
  });

  it('amqp plug-in - a peer said to use another broker is found; other credentials are the same broker', () => {
    const own = { url: 'amqp://a:secret@rabbit:5672/agents' };
    expect(amqpTransportPlugin.checkRoute?.({ url: 'amqp://b:other@rabbit:5672/agents' }, own)).toBeUndefined();
    expect(amqpTransportPlugin.checkRoute?.({ url: 'amqp://rabbit-2:5672/agents' }, own)?.field).toBe('url');
  });

  it('amqp transport - a missing rabbitmq-client is EAGENTRPC_MISSING_PACKAGE; bad options are a TypeError or RangeError', async () => {
    const transport = amqpTransport({ url: 'amqp://127.0.0.1:1', loadModule: () => Promise.reject(Object.assign(new Error("Cannot find package 'rabbitmq-client'"), { code: 'ERR_MODULE_NOT_FOUND' })) });
    expect(isRpcErrorWithCode(await transport.connect().catch((e: unknown) => e), 'EAGENTRPC_MISSING_PACKAGE')).toBe(true);
    expect(() => amqpTransport({ url: 'http://x' })).toThrow(TypeError);
    expect(() => amqpTransport({ url: 'amqp://x', maxDeliver: 0 })).toThrow(RangeError);
  });

  it('amqp transport - nothing listening fails connect with EAGENTRPC_CONNECT_FAILED within connectTimeoutMs', async () => {
    const transport = amqpTransport({ url: 'amqp://guest:guest@127.0.0.1:1', connectTimeoutMs: 300 });
    const error = await transport.connect().catch((e: unknown) => e);
    expect(isRpcErrorWithCode(error, 'EAGENTRPC_CONNECT_FAILED')).toBe(true);
    expect(JSON.stringify((error as { details?: unknown }).details)).not.toContain('guest:guest');
    await transport.close();
  });
});
