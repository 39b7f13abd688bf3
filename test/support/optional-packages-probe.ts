/**
 * Run by test/integration/optional-packages.test.ts in a process where none of the optional
 * peer packages resolve (without-optional-packages.mjs): starts a daemon on the memory
 * transport, reads its A2A and flow-page paths, then tries the configurations that need a
 * missing package. Prints one JSON report on stdout.
 */
import { appendFileSync, cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/session-node', import.meta.url).pathname;

function configDir(agentYamlTail: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'optional-packages-'));
  cpSync(FIXTURE, dir, { recursive: true });
  appendFileSync(join(dir, 'agent.yaml'), agentYamlTail);
  const env = { ALICE_TOKEN: 'alice-token', BOB_TOKEN: 'bob-token', CAROL_TOKEN: 'carol-token', VIC_TOKEN: 'vic-token', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(dir, 'data') };
  return { dir, env };
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

async function startError(agentYamlTail: string): Promise<{ code: string; message: string } | 'started'> {
  const { dir, env } = configDir(agentYamlTail);
  try {
    const daemon = await startDaemon(dir, builtinPlugins, { env, logger: silentLogger });
    await daemon.stop();
    return 'started';
  } catch (error) {
    return error instanceof RpcError ? { code: error.code, message: error.message } : { code: 'not an RpcError', message: String(error) };
  }
}

const plain = configDir('');
const daemon = await startDaemon(plain.dir, builtinPlugins, { env: plain.env, logger: silentLogger });
const port = daemon.http.port;
const report = {
  a2aServer: daemon.a2a === undefined ? 'absent' : 'present',
  healthz: (await get(port, '/healthz')).status,
  agentCard: await get(port, '/.well-known/agent-card.json'),
  flowsPage: (await get(port, '/flows')).status,
  cytoscape: await get(port, '/flows/assets/cytoscape.min.js'),
};
await daemon.stop();
const configured = {
  otlpTracing: await startError('tracing: { exporter: otlp }\n'),
  a2aBlock: await startError('a2a: { tasksPerUser: 10 }\n'),
};
process.stdout.write(JSON.stringify({ ...report, ...configured }));
