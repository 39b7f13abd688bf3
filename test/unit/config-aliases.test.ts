import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { alias, seconds } from '../../src/yaml/aliases.js';
import { agentFileSchemaOf } from '../../src/config/agent-file.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { parseYaml } from '../../src/yaml/load-yaml.js';

// agent.yaml as the command reads it: the core's sections and the built-in plug-ins' (handler entries, tools).
const agentFileSchema = agentFileSchemaOf(builtinPlugins);

/** agent.yaml as RFC 027 writes it: snake_case names, which are aliases of the camelCase fields. */
const snakeCase = `version: 1
agent:
  id: pr-reviewer
session:
  max_per_user: 5
remote_nodes:
  - name: farm
    api_base_url: https://farm.example/
    auth_type: token
    auth_token: "\${env:FARM_TOKEN}"
    skip_tls_verify: true
remote_node_store: { keyRef: "\${env:NODE_STORE_KEY}" }
`;

const env = { FARM_TOKEN: 'never-expanded', NODE_STORE_KEY: 'never-expanded' };

function configError(text: string): ConfigError {
  try {
    parseYaml('/etc/agent-rpc/agent.yaml', text, agentFileSchema, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config - aliases', () => {
  it('config - snake_case aliases load as the camelCase fields; secret references stay unexpanded', () => {
    const loaded = parseYaml('/etc/agent-rpc/agent.yaml', snakeCase, agentFileSchema, { env });
    expect((loaded.value as Record<string, unknown>).session).toEqual({ maxPerUser: 5 });
    expect(loaded.value.remoteNodes).toEqual([
      { name: 'farm', description: '', apiBaseUrl: 'https://farm.example', authType: 'token', authTokenRef: '${env:FARM_TOKEN}', skipTlsVerify: true, timeout: 300_000 },
    ]);
    expect((loaded.value as Record<string, unknown>).remoteNodeStore).toEqual({ keyRef: '${env:NODE_STORE_KEY}' });
    expect(loaded.lineOf(['remoteNodes', 0, 'authTokenRef'])).toBe(10);
    expect(loaded.lineOf(['session', 'maxPerUser'])).toBe(5);
  });

  it('config - an error in an aliased field names the field and the line the user wrote', () => {
    const error = configError(snakeCase.replace('auth_type: token', 'auth_type: bearer'));
    expect(error).toMatchObject({ file: '/etc/agent-rpc/agent.yaml', line: 9, field: 'remoteNodes[0].authType' });
    expect(configError(snakeCase.replace('max_per_user: 5', 'max_per_user: 0'))).toMatchObject({ line: 5, field: 'session.maxPerUser' });
  });

  it('config - an unknown field is still an error, next to aliases too', () => {
    const error = configError(snakeCase.replace('    skip_tls_verify: true', '    skip_tls_verify: true\n    verify_host: false'));
    expect(error).toMatchObject({ line: 7, field: 'remoteNodes[0]' });
    expect(error.message).toContain('verify_host');
  });

  it('config - an alias given next to its field is an error at the alias', () => {
    const error = configError(snakeCase.replace('  max_per_user: 5', '  max_per_user: 5\n  maxPerUser: 6'));
    expect(error).toMatchObject({ line: 5, field: 'session.max_per_user' });
    expect(error.message).toContain('maxPerUser');
    expect(configError(`${snakeCase}remoteNodes: []\n`)).toMatchObject({ line: 6, field: 'remote_nodes' });
  });

  it('config - aliases apply inside arrays, records and the chosen variant of a discriminated union', () => {
    const schema = z.strictObject({
      items: z.array(z.strictObject({ maxCount: alias(z.int(), 'max_count') })),
      byName: z.record(z.string(), z.strictObject({ keyRef: alias(z.string(), 'key_ref') })),
      auth: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('a'), aField: alias(z.int(), 'a_field') }), z.strictObject({ kind: z.literal('b'), bField: alias(z.int(), 'b_field') })]),
    });
    const text = 'items: [{ max_count: 1 }, { maxCount: 2 }]\nbyName: { x: { key_ref: "${env:NOT_EXPANDED}" } }\nauth: { kind: b, b_field: 3 }\n';
    expect(parseYaml('f.yaml', text, schema, { env: {} }).value).toEqual({ items: [{ maxCount: 1 }, { maxCount: 2 }], byName: { x: { keyRef: '${env:NOT_EXPANDED}' } }, auth: { kind: 'b', bField: 3 } });
    // An alias of another variant is not one of this variant's: an unknown field.
    expect(() => parseYaml('f.yaml', text.replace('b_field', 'a_field'), schema)).toThrow(ConfigError);
  });

  it('config - an alias in seconds loads as milliseconds, rounded to whole ones', () => {
    const schema = z.strictObject({ waitMs: alias(z.int().min(1).optional(), 'wait_ms', seconds('wait_sec'), seconds('waitSec')) });
    expect(parseYaml('f.yaml', 'wait_sec: 90\n', schema).value).toEqual({ waitMs: 90_000 });
    expect(parseYaml('f.yaml', 'waitSec: 0.07\n', schema).value).toEqual({ waitMs: 70 });
    expect(parseYaml('f.yaml', 'wait_ms: 90\n', schema).value).toEqual({ waitMs: 90 });
    // Not a number: left to the field's schema, which names the field.
    expect(() => parseYaml('f.yaml', 'wait_sec: soon\n', schema)).toThrow(/f\.yaml:1: waitMs: /);
  });

  it('config - two aliases of one field are refused like an alias beside the field', () => {
    const schema = z.strictObject({ waitMs: alias(z.int().optional(), 'wait_ms', seconds('wait_sec')) });
    expect(() => parseYaml('f.yaml', 'wait_ms: 1\nwait_sec: 2\n', schema)).toThrow(/f\.yaml:2: wait_sec: is an alias of waitMs, which is also given: keep one/);
  });

  it('config - a model agent written as RFC 014 writes it (snake_case agent block) loads as the camelCase fields', () => {
    const text = `version: 1
agent: { id: a }
handlers:
  module: ./handler.js
  triage:
    type: agent
    agent:
      max_iterations: 12
      safe_mode: false
      tools:
        bash_policy: { default_behavior: deny, deny_behavior: block, rules: [] }
    messages: [{ role: user, content: hi }]
  nightly: { type: workflow, file: nightly.yaml }
`;
    const loaded = parseYaml('agent.yaml', text, agentFileSchema);
    expect(loaded.value.handlers['triage']).toMatchObject({ agent: { maxIterations: 12, safeMode: false, tools: { bashPolicy: { defaultBehavior: 'deny', denyBehavior: 'block', rules: [] } } } });
    expect(loaded.lineOf(['handlers', 'triage', 'agent', 'maxIterations'])).toBe(8);
    expect(() => parseYaml('agent.yaml', text.replace('      safe_mode: false', '      safe_mode: false\n      safeMode: true'), agentFileSchema)).toThrow(/agent\.yaml:9: handlers\.triage\.agent\.safe_mode: is an alias of safeMode/);
  });

  it('config - agent.yaml durations written in seconds become the millisecond fields', () => {
    const text = `version: 1
agent: { id: a }
tools: { bash: { timeoutSec: 30 } }
rpc: { auth: { required: oidc, issuer: "https://idp.example", audience: a, clockSkewSeconds: 5 } }
`;
    const { value } = parseYaml('agent.yaml', text, agentFileSchema);
    expect((value as { tools?: { bash?: { timeoutMs?: number } } }).tools?.bash?.timeoutMs).toBe(30_000);
    expect(value.rpc?.auth).toMatchObject({ required: 'oidc', clockSkewMs: 5_000 });
    expect(() => parseYaml('agent.yaml', text.replace('timeoutSec: 30', 'timeoutSec: 30, timeoutMs: 30000'), agentFileSchema)).toThrow(/tools\.bash\.timeoutSec: is an alias of timeoutMs/);
  });

  it('config - in a plain union, aliases apply in the object option whose constant fields the mapping has', () => {
    const schema = z.strictObject({
      handlers: z.record(z.string(), z.union([z.string(), z.strictObject({ type: z.literal('a'), maxCount: alias(z.int(), 'max_count') }), z.strictObject({ type: z.literal('b'), keyRef: alias(z.string(), 'key_ref') })])),
    });
    const text = 'handlers: { one: ./one.js, two: { type: a, max_count: 2 }, three: { type: b, key_ref: x } }\n';
    expect(parseYaml('f.yaml', text, schema).value).toEqual({ handlers: { one: './one.js', two: { type: 'a', maxCount: 2 }, three: { type: 'b', keyRef: 'x' } } });
  });
});
