import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAgentTools, type Tool, type ToolContext } from '../../src/model-agents/index.js';
import { FileAuditLog } from '../../src/audit/file-audit-log.js';
import { readAuditLog } from '../../src/audit/read-audit-log.js';
import { RpcError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import type { RemoteAuthType, RemoteNode, RemoteNodeResolver } from '../../src/remote-nodes/remote-node.js';
import type { Role } from '../../src/auth/roles.js';
import type { RemoteSessionRunner } from '../../src/remote-nodes/remote-session-client.js';

const TOKEN = 'tok-NEVER-SHOWN-4711';
const node = (name: string, authType: RemoteAuthType, description = `${name} agents`): RemoteNode => ({
  name,
  description,
  apiBaseUrl: `https://${name}.example`,
  authType,
  ...(authType === 'none' ? {} : { authToken: new SecretValue(authType === 'basic' ? `u:${TOKEN}` : TOKEN) }),
  skipTlsVerify: false,
  timeoutMs: 60_000,
  source: 'config',
});
const resolverOf = (nodes: RemoteNode[]): RemoteNodeResolver => ({ list: async () => nodes, get: async (name) => nodes.find((n) => n.name === name) });
const fleet = resolverOf([node('build-farm', 'token'), node('data-lab', 'token', 'Data science agents'), node('legacy', 'basic'), node('open', 'none')]);

/** Records what it was asked; answers like a finished remote session. Pure logic: the real client is tested against real nodes. */
function recordingRunner(fail?: RpcError): RemoteSessionRunner & { calls: Array<{ node: string; message: string }> } {
  const calls: Array<{ node: string; message: string }> = [];
  const run: RemoteSessionRunner = async (target, request) => {
    calls.push({ node: target.name, message: request.message });
    if (fail) throw fail;
    return { sessionId: '5b0c1f0e-1111-4222-8333-944445555666', output: `done: ${request.message}` };
  };
  return Object.assign(run, { calls });
}

async function contextFor(role: Role): Promise<{ context: ToolContext; file: string; audit: FileAuditLog }> {
  const file = join(mkdtempSync(join(tmpdir(), 'tools-audit-')), 'audit.jsonl');
  const audit = await FileAuditLog.open({ path: file });
  return { context: { principal: { user: 'alice', role }, agentId: 'assistant', audit, logger: silentLogger }, file, audit };
}

const byName = (tools: Tool[], name: string): Tool => tools.find((t) => t.name === name)!;

describe('agent tools: remote_agent and list_remote_nodes', () => {
  it('tools - off by default; the policy turns each on', async () => {
    const runner = recordingRunner();
    expect(await buildAgentTools({ policy: {}, resolver: fleet, runner, delegated: false })).toEqual([]);
    expect((await buildAgentTools({ policy: { remote_agent: true }, resolver: fleet, runner, delegated: false })).map((t) => t.name)).toEqual(['remote_agent']);
    expect((await buildAgentTools({ policy: { list_remote_nodes: true }, resolver: fleet, runner, delegated: false })).map((t) => t.name)).toEqual(['list_remote_nodes']);
  });

  it('tools - hidden without a token node, and never in a delegated sub-agent set', async () => {
    const policy = { remote_agent: true, list_remote_nodes: true };
    const noTokenNodes = resolverOf([node('legacy', 'basic'), node('open', 'none')]);
    expect(await buildAgentTools({ policy, resolver: noTokenNodes, runner: recordingRunner(), delegated: false })).toEqual([]);
    expect(await buildAgentTools({ policy, resolver: fleet, runner: recordingRunner(), delegated: true })).toEqual([]);
  });

  it('tools - remote_agent offers exactly the token nodes, as an enum and in its description; no credential anywhere', async () => {
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: fleet, runner: recordingRunner(), delegated: false });
    expect(tool!.parameters.properties['node']).toMatchObject({ enum: ['build-farm', 'data-lab'] });
    expect(tool!.description).toContain('- build-farm: build-farm agents\n- data-lab: Data science agents');
    expect(tool!.description).not.toContain('legacy');
    expect(JSON.stringify(tool)).not.toContain(TOKEN);
  });

  it.each(['viewer', 'developer'] as const)('tools - a %s is denied with the exact message and nothing runs', async (role) => {
    const runner = recordingRunner();
    const tools = await buildAgentTools({ policy: { remote_agent: true, list_remote_nodes: true }, resolver: fleet, runner, delegated: false });
    const { context } = await contextFor(role);
    expect(await byName(tools, 'remote_agent').execute({ node: 'build-farm', message: 'x' }, context)).toEqual({ isError: true, output: 'Permission denied: remote_agent requires execute permission' });
    expect(await byName(tools, 'list_remote_nodes').execute({}, context)).toEqual({ isError: true, output: 'Permission denied: list_remote_nodes requires execute permission' });
    expect(runner.calls).toEqual([]);
  });

  it.each(['operator', 'manager', 'admin'] as const)('tools - a %s runs remote_agent; the call is audited with node, length and session id', async (role) => {
    const runner = recordingRunner();
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: fleet, runner, delegated: false });
    const { context, file, audit } = await contextFor(role);
    const result = await tool!.execute({ node: 'data-lab', message: 'summarize the run' }, context);
    expect(result).toEqual({ output: 'done: summarize the run' });
    expect(runner.calls).toEqual([{ node: 'data-lab', message: 'summarize the run' }]);
    await audit.close();
    const [record] = await readAuditLog(file, { kind: 'remote_agent_exec' });
    expect(record).toMatchObject({ node: 'data-lab', message_length: 17, remote_session_id: '5b0c1f0e-1111-4222-8333-944445555666', user: 'alice', outcome: 'completed' });
  });

  it('tools - arguments outside the schema and nodes that are not eligible are refused before any call', async () => {
    const runner = recordingRunner();
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: fleet, runner, delegated: false });
    const { context } = await contextFor('operator');
    expect(await tool!.execute({ node: 'legacy', message: 'x' }, context)).toEqual({ isError: true, output: 'Unknown remote node "legacy". Available nodes: build-farm, data-lab' });
    expect(await tool!.execute({ node: 'prod', message: 'x' }, context)).toEqual({ isError: true, output: 'Unknown remote node "prod". Available nodes: build-farm, data-lab' });
    expect((await tool!.execute({ node: 'build-farm' }, context)).isError).toBe(true);
    expect((await tool!.execute({ node: 'build-farm', message: 'x', extra: 1 }, context)).isError).toBe(true);
    expect(runner.calls).toEqual([]);
  });

  it('tools - remote_agent names the nodes available when it is called, a node added to the store since included', async () => {
    const nodes = [node('build-farm', 'token')];
    const runner = recordingRunner();
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: resolverOf(nodes), runner, delegated: false });
    const { context } = await contextFor('operator');
    nodes.push(node('night-shift', 'token'));
    expect(await tool!.execute({ node: 'nightshift', message: 'x' }, context)).toEqual({ isError: true, output: 'Unknown remote node "nightshift". Available nodes: build-farm, night-shift' });
    expect(await tool!.execute({ node: 'night-shift', message: 'x' }, context)).toEqual({ output: 'done: x' });
    expect(runner.calls).toEqual([{ node: 'night-shift', message: 'x' }]);
  });

  it('tools - a failed remote run is an error result, audited with its code and session id', async () => {
    const failure = new RpcError('EAGENTRPC_REMOTE_TIMEOUT', 'remote session s-1 on build-farm did not finish', { details: { sessionId: 's-1' } });
    const [tool] = await buildAgentTools({ policy: { remote_agent: true }, resolver: fleet, runner: recordingRunner(failure), delegated: false });
    const { context, file, audit } = await contextFor('operator');
    expect(await tool!.execute({ node: 'build-farm', message: 'x' }, context)).toEqual({ isError: true, output: 'remote_agent failed: [EAGENTRPC_REMOTE_TIMEOUT] remote session s-1 on build-farm did not finish' });
    await audit.close();
    expect((await readAuditLog(file, { kind: 'remote_agent_exec' }))[0]).toMatchObject({ remote_session_id: 's-1', outcome: 'failed', code: 'EAGENTRPC_REMOTE_TIMEOUT' });
  });

  it('tools - list_remote_nodes filters by name, makes no remote call, and is audited', async () => {
    const runner = recordingRunner();
    const [tool] = await buildAgentTools({ policy: { list_remote_nodes: true }, resolver: fleet, runner, delegated: false });
    const { context, file, audit } = await contextFor('operator');
    const listed = async (args: Record<string, unknown>) => JSON.parse((await tool!.execute(args, context)).output);
    expect(await listed({})).toEqual([
      { name: 'build-farm', description: 'build-farm agents' },
      { name: 'data-lab', description: 'Data science agents' },
    ]);
    expect(await listed({ name_filter: 'LAB' })).toEqual([{ name: 'data-lab', description: 'Data science agents' }]);
    expect(await listed({ name_filter: 'zzz' })).toEqual([]);
    expect(runner.calls).toEqual([]);
    await audit.close();
    const records = await readAuditLog(file, { kind: 'remote_nodes_list' });
    expect(records.map((r) => r['name_filter'])).toEqual([null, 'LAB', 'zzz']);
    expect(JSON.stringify(records)).not.toContain(TOKEN);
  });
});
