import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallResult } from '../../src/index.js';
import { serveUntilSignalled, startDaemon } from '../../src/runtime/daemon.js';
import { builtinTransports } from '../../transports/plugins.js';

/**
 * `npm start`: the quickstart fleet — four agents configured by the YAML files in
 * examples/quickstart/agents — on the in-process transport, with /metrics served. Shows a
 * call in each mode, a refused call, a timeout and a malformed message ending in the DLQ,
 * then keeps serving (until Ctrl-C) so the CLI can call the fleet through its session API.
 */
function show(label: string, route: string, result: CallResult): void {
  const detail = result.status === 'ok' ? JSON.stringify(result.response ?? null) : `${result.error?.code}: ${result.error?.message}`;
  console.log(
    `${label.padEnd(16)} ${route.padEnd(38)} status=${result.status.padEnd(9)} correlationId=${result.correlationId} latency=${result.latencyMs.toFixed(2)}ms  ${detail}`,
  );
}

/** The repository root (this file runs from the sources or from dist/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const agentsDir = join(repoRoot(), 'examples', 'quickstart', 'agents');
const dataDir = join(process.cwd(), '.agent-rpc', 'quickstart');
// A development token for the fleet's HTTP API; set AGENT_RPC_TOKEN to choose your own.
const token = process.env['AGENT_RPC_TOKEN'] ?? 'quickstart-dev-token';
const daemon = await startDaemon(
  ['frontdesk', 'pr-reviewer', 'linter', 'auditor'].map((id) => join(agentsDir, id)),
  builtinTransports,
  { env: { ...process.env, QUICKSTART_DATA_DIR: dataDir, AGENT_RPC_TOKEN: token }, http: { port: Number(process.env['PORT'] ?? 9464) } },
);
const agent = (id: string) => daemon.agents.find((a) => a.node.id === id)!.node;
const [frontdesk, reviewer, auditor] = [agent('frontdesk'), agent('pr-reviewer'), agent('auditor')];
console.log(`agent-rpc quickstart: 4 agents from ${agentsDir} on the in-process bus`);
console.log(`metrics: http://127.0.0.1:${daemon.http.port}/metrics; DLQ and audit files in ${dataDir}\n`);

auditor.on('agent.rpc.event', ({ envelope }) => {
  console.log(`${'  event'.padEnd(16)} auditor received ${envelope.capability} from ${envelope.from} correlationId=${envelope.correlationId}`);
});
frontdesk.on('agent.rpc.response', (event) => show('async response', `frontdesk → pr-reviewer/${event.capability}`, event));

const sync = await frontdesk.requestAgent({
  to: 'agent://pr-reviewer',
  capability: 'review-pr',
  payload: { prUrl: 'https://git.example/acme/app/pull/7', files: ['src/app.ts', 'src/legacy.js'] },
  onProgress: (data) => console.log(`${'  progress'.padEnd(16)} ${JSON.stringify(data)}`),
});
show('sync', 'frontdesk → pr-reviewer/review-pr', sync);

const async = await frontdesk.requestAgent({ to: 'pr-reviewer', capability: 'summarize', payload: { prUrl: 'pull/7' }, mode: 'async' });
show('async accepted', 'frontdesk → pr-reviewer/summarize', async);

const event = await frontdesk.requestAgent({ to: 'auditor', capability: 'review-requested', payload: { pr: 7 }, mode: 'fire-and-forget' });
show('fire-and-forget', 'frontdesk → auditor/review-requested', event);

const refused = await frontdesk.requestAgent({ to: 'billing', capability: 'refund', payload: { amount: 100 } });
show('refused', 'frontdesk → billing/refund', refused);

const invalid = await frontdesk.requestAgent({ to: 'pr-reviewer', capability: 'review-pr', payload: { prUrl: 7 } });
show('schema', 'frontdesk → pr-reviewer/review-pr', invalid);

const timedOut = await frontdesk.requestAgent({ to: 'linter', capability: 'deep-scan', payload: {}, timeoutMs: 100 });
show('timeout', 'frontdesk → linter/deep-scan', timedOut);

// A client that sends garbage (here straight to the agent's inbound port, as the session
// API would hand it over): the inbox keeps it, with a reason, in the DLQ.
await reviewer.inbound.deliver({ body: Buffer.from('{"version":1,"kind":"request","kind":"event"}'), deliveryId: 'quickstart-garbage' });

await new Promise((resolve) => setTimeout(resolve, 400));
for (const record of await reviewer.dlq.list()) {
  console.log(`${'dlq'.padEnd(16)} pr-reviewer kept ${record.kind} (${record.reason}): ${record.detail}`);
}
for (const record of await frontdesk.dlq.list()) {
  console.log(`${'dlq'.padEnd(16)} frontdesk kept ${record.kind} (${record.reason}) for ${record.envelope?.capability}: the late deep-scan answer`);
}
const url = `http://127.0.0.1:${daemon.http.port}`;
console.log(`\nserving: ${url} (/metrics, /healthz, /api/v1); Ctrl-C stops the fleet. Call it from another terminal:`);
console.log(`  AGENT_RPC_TOKEN=${token} node dist/bin/agent-rpc.js call agent://pr-reviewer review-pr --url ${url} --payload '{"prUrl":"pull/8","files":["a.ts"]}'`);
const code = await serveUntilSignalled(daemon);
console.log(`fleet stopped (exit ${code})`);
process.exit(code);
