import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { loadAgentConfig } from '../../src/config/index.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { until } from '../support/fleet.js';

// Two agents in one daemon on the in-process bus: a frontdesk that sends events, and an
// auditor whose agent.yaml names a handler for them (`events:`), as a fleet deploys it.
const root = mkdtempSync(join(tmpdir(), 'yaml-events-'));
const ledger = join(root, 'ledger.jsonl');
const env = { AGENT_HTTP_PORT: '0' };
let daemon: RunningDaemon;

function agentDir(id: string, agentYaml: string, capabilities: string, files: Record<string, string> = {}): string {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), `version: 1\nagent:\n  id: ${id}\nlog: { level: silent }\nhttp:\n  port: \${env:AGENT_HTTP_PORT}\ndataDir: ./data\n${agentYaml}`);
  writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  memory: {}\ncapabilities:\n${capabilities}`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const ON_REVIEWED = `import { appendFileSync } from 'node:fs';
export default async function onReviewed(payload, ctx) {
  if (payload.verdict === 'refuse') throw Object.assign(new Error('verdict refused'), { code: 'BAD_VERDICT' });
  appendFileSync(${JSON.stringify(ledger)}, JSON.stringify({ payload, from: ctx.from, correlationId: ctx.correlationId, responds: typeof ctx.respond }) + '\\n');
}
`;

const auditorDir = agentDir('auditor', 'events:\n  reviewed: ./on-reviewed.mjs\n', '  - name: reviewed\n', { 'on-reviewed.mjs': ON_REVIEWED });
const frontdeskDir = agentDir('frontdesk', '', '  []\n', { 'rpc-peers.yaml': 'version: 1\npeers:\n  - id: agent://auditor\n    transports: [{ kind: memory }]\n' });

const ledgerLines = (): Array<Record<string, unknown>> =>
  existsSync(ledger)
    ? readFileSync(ledger, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];

beforeAll(async () => {
  daemon = await startDaemon([auditorDir, frontdeskDir], builtinPlugins, { env, logger: silentLogger });
});
afterAll(() => daemon?.stop());

const node = (id: string) => daemon.agents.find((agent) => agent.node.id === id)!.node;

describe('agent.yaml events', () => {
  it('yaml events - the handler agent.yaml names for a capability\'s events runs once per event', async () => {
    const sent = await node('frontdesk').requestAgent({ to: 'auditor', capability: 'reviewed', payload: { verdict: 'ok' }, mode: 'fire-and-forget' });
    expect(sent.status).toBe('ok');
    await until(() => ledgerLines().length === 1);
    expect(ledgerLines()[0]).toMatchObject({ payload: { verdict: 'ok' }, from: 'agent://frontdesk', correlationId: sent.correlationId });
  });

  it('yaml events - a handler that fails leaves the event in the DLQ as handler-failed', async () => {
    await node('frontdesk').requestAgent({ to: 'auditor', capability: 'reviewed', payload: { verdict: 'refuse' }, mode: 'fire-and-forget' });
    const dlq = node('auditor').dlq;
    await until(async () => (await dlq.list()).length === 1);
    const [record] = await dlq.list();
    expect(record).toMatchObject({ kind: 'handler-failed', envelope: { kind: 'event', capability: 'reviewed' }, error: { message: expect.stringContaining('verdict refused') } });
    expect(Buffer.from(record!.rawBase64, 'base64').toString()).toContain('"verdict":"refuse"');
  });

  it('yaml events - the capability has no request handler: a request to it is refused as unknown', async () => {
    const result = await node('frontdesk').requestAgent({ to: 'auditor', capability: 'reviewed', payload: {}, timeoutMs: 5_000 });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
  });

  it('yaml events - an events entry for a capability capabilities.yaml does not declare names the file and field', async () => {
    const dir = agentDir('stray', 'events:\n  unknown-thing: ./on-reviewed.mjs\n', '  - name: reviewed\n', { 'on-reviewed.mjs': ON_REVIEWED });
    const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
    expect(String(error)).toMatch(/agent\.yaml:\d+: events\.unknown-thing: capability unknown-thing is not declared in capabilities\.yaml/);
  });

  it('yaml events - an events entry takes the forms handlers: takes, and is checked like them', async () => {
    const dir = agentDir('badmodel', 'events:\n  reviewed:\n    type: agent\n    agent: { model: nowhere }\n    messages: [{ role: user, content: "Record ${input.verdict}" }]\n', '  - name: reviewed\n');
    const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
    expect(String(error)).toMatch(/agent\.yaml:\d+: events\.reviewed\.agent\.model: /);
  });
});
