import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { routeRequestsTopic } from '../../src/config/peers-file.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { capabilitiesOfCard, requestMessage, taskError, TASK_STATES } from '../../src/a2a/a2a-mapping.js';
import { configKinds } from '../../src/config/config-kinds.js';
import type { AgentRpcEnvelope } from '../../src/envelope/index.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

function withRoute(route: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  const file = join(dir, 'rpc-peers.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('transports: [{ kind: memory }]', `transports: [${route}]`));
  return dir;
}

describe('a2a route config', () => {
  it('a2a route config - a url and a token reference load; the url is the route’s topic', async () => {
    const config = await loadAgentConfig(withRoute('{ kind: a2a, url: "https://agents.example/research", tokenRef: "${env:RESEARCH_TOKEN}" }'), builtinPlugins, env);
    const route = config.peers!.value.peers[0]!.transports[0]!;
    expect(route).toEqual({ kind: 'a2a', url: 'https://agents.example/research', tokenRef: '${env:RESEARCH_TOKEN}' });
    expect(routeRequestsTopic(configKinds(builtinPlugins), route)).toBe('https://agents.example/research');
  });

  it('a2a route config - a url that is not http(s) is a ConfigError naming file and field', async () => {
    for (const url of ['ftp://agents.example', 'not a url']) {
      const error = await loadAgentConfig(withRoute(`{ kind: a2a, url: "${url}" }`), builtinPlugins, env).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({ field: 'peers[0].transports[0].url', line: 4 });
      expect((error as ConfigError).file).toMatch(/rpc-peers\.yaml$/);
    }
  });

  it('a2a route config - a missing url and an unknown field are ConfigErrors naming the field', async () => {
    const missing = await loadAgentConfig(withRoute('{ kind: a2a }'), builtinPlugins, env).catch((e: unknown) => e);
    expect(missing).toMatchObject({ field: 'peers[0].transports[0].url' });
    const unknown = await loadAgentConfig(withRoute('{ kind: a2a, url: "https://a.example", token: "inline" }'), builtinPlugins, env).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ConfigError);
    expect((unknown as ConfigError).field).toMatch(/^peers\[0\]\.transports\[0\]/);
  });
});

const request: AgentRpcEnvelope = {
  version: 1,
  kind: 'request',
  messageId: 'm-1',
  correlationId: 'c-1',
  from: 'agent://front',
  to: 'agent://summarizer',
  capability: 'summarize',
  payload: { message: 'hello', extra: 1 },
};

describe('a2a mapping', () => {
  it('a2a mapping - an object with more than a message is a data part; the skill and flow travel in metadata', () => {
    const message = requestMessage(request);
    expect(message.parts[0]?.content).toEqual({ $case: 'data', value: { message: 'hello', extra: 1 } });
    expect(message.metadata).toEqual({ correlationId: 'c-1', messageId: 'm-1', capability: 'summarize', from: 'agent://front', skillId: 'summarize' });
  });

  it('a2a mapping - a failed task keeps an EAGENTRPC code its message names, else is PEER_FAILED', () => {
    const status = (text: string) => ({
      state: TASK_STATES.failed,
      timestamp: undefined,
      message: { messageId: 'x', contextId: '', taskId: 't', role: 2, parts: [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: '' }], metadata: undefined, extensions: [], referenceTaskIds: [] },
    });
    expect(taskError('https://a', 't', status('EAGENTRPC_SCHEMA_VIOLATION: input at /text')).code).toBe('EAGENTRPC_SCHEMA_VIOLATION');
    expect(taskError('https://a', 't', status('EAGENTRPC_NOT_A_CODE happened')).code).toBe('EAGENTRPC_PEER_FAILED');
    expect(taskError('https://a', 't', { ...status('which file?'), state: TASK_STATES.inputRequired }).code).toBe('EAGENTRPC_PEER_INPUT_REQUIRED');
  });

  it('a2a mapping - skills without a name keep their description; every skill takes {message}', () => {
    const card = { skills: [{ id: 's', name: '', description: 'Does s.' }] } as never;
    expect(capabilitiesOfCard('agent://p', card).capabilities).toEqual([{ name: 's', description: 'Does s.', inputSchema: expect.objectContaining({ required: ['message'] }) }]);
  });
});
