import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig, type AgentConfig } from '../../src/config/agent-config.js';
import type { FrontDoorPlugin, FrontDoorProcess, ServedAgent } from '../../src/config/front-door-plugin.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { ApiTokens } from '../../src/http-server/api-tokens.js';
import { silentLogger } from '../../src/logger.js';
import { systemClock } from '../../src/clock.js';
import type { ApprovalGate } from '../../src/rpc/index.js';
import { OpenedFrontDoors } from '../../src/runtime/opened-front-doors.js';
import { builtinFrontDoors } from '../../src/runtime/front-doors.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

function withSection(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'front-doors-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), `${readFileSync(join(dir, 'agent.yaml'), 'utf8')}\n${text}\n`);
  return dir;
}

/** A front door that writes down each hook it hears, and wraps the approval gate with its name. */
function recordingDoor(name: string, heard: string[]): FrontDoorPlugin<string> {
  return {
    name,
    open() {
      heard.push(`${name}.open`);
      return Promise.resolve({
        handle: `${name}-handle`,
        wire: (_config, wiring) => {
          heard.push(`${name}.wire`);
          const before = wiring.approvals;
          const gate: ApprovalGate = { request: async (request, prompt) => ({ ...(before ? await before.request(request, prompt) : { approved: true }), [name]: true }) as never };
          return { ...wiring, approvals: gate };
        },
        attach: (agent) => void heard.push(`${name}.attach ${agent.id}`),
        routes: () => [{ method: 'GET', pattern: `/api/v1/${name}`, permission: 'read', handle: () => Promise.resolve({ status: 200, body: {} }) }],
        listening: (baseUrl) => void heard.push(`${name}.listening ${baseUrl}`),
        started: () => Promise.resolve(void heard.push(`${name}.started`)),
        closeBeforeAgents: () => void heard.push(`${name}.closeBeforeAgents`),
        closeAfterAgents: () => Promise.resolve(void heard.push(`${name}.closeAfterAgents`)),
        closeAfterServer: () => Promise.resolve(void heard.push(`${name}.closeAfterServer`)),
      });
    },
  };
}

describe('front door plug-ins', () => {
  it('front doors - every hook is called on each front door in list order; each wiring wraps the ones before', async () => {
    const heard: string[] = [];
    const [first, second] = [recordingDoor('first', heard), recordingDoor('second', heard)];
    const config = { agent: { value: { agent: { id: 'a' } } } } as unknown as AgentConfig;
    const process: FrontDoorProcess = { first: config, configs: [config], tokens: new ApiTokens([]), secrets: { resolve: () => Promise.reject(new Error('none')) }, logger: silentLogger, ready: () => true, version: '0', clock: systemClock };
    const doors = await OpenedFrontDoors.open([first, second], process);
    const wiring = await doors.wire(config);
    const agent = { id: 'a', config } as unknown as ServedAgent;
    await doors.attach(agent);
    expect(doors.routes().map((route) => route.pattern)).toEqual(['/api/v1/first', '/api/v1/second']);
    doors.listening('http://127.0.0.1:1');
    await doors.started([agent]);
    await doors.closeBeforeAgents();
    await doors.closeAfterAgents();
    await doors.closeAfterServer();
    expect(heard).toEqual([
      'first.open', 'second.open', 'first.wire', 'second.wire', 'first.attach a', 'second.attach a',
      'first.listening http://127.0.0.1:1', 'second.listening http://127.0.0.1:1', 'first.started', 'second.started',
      'first.closeBeforeAgents', 'second.closeBeforeAgents', 'first.closeAfterAgents', 'second.closeAfterAgents', 'first.closeAfterServer', 'second.closeAfterServer',
    ]);
    expect(await wiring.approvals!.request({} as never, {} as never)).toMatchObject({ first: true, second: true });
    expect(doors.handleOf(second)).toBe('second-handle');
    expect(doors.handleOf(recordingDoor('absent', heard))).toBeUndefined();
  });

  it('front doors - each built-in front door owns its agent.yaml section; without the front door the section is refused', async () => {
    expect(builtinFrontDoors.map((door) => [door.name, Object.keys(door.configShape ?? {})])).toEqual([
      ['sessions', ['session']],
      ['remote-nodes', ['remoteNodeStore']],
      ['execute', ['execute']],
      ['a2a', ['a2a']],
      ['flows', ['flows']],
    ]);
    const dir = withSection('session: { maxPerUser: 5 }');
    await expect(loadAgentConfig(dir, builtinPlugins, env)).resolves.toBeDefined();
    const error = await loadAgentConfig(dir, { ...builtinPlugins, frontDoors: builtinFrontDoors.filter((door) => door.name !== 'sessions') }, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
  });
});
