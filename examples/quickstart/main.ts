import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveUntilSignalled, startDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { show } from './show-call.js';
import { runTriageDemo } from './triage-demo.js';
import { startTriagerModel } from './triager-model.js';

/**
 * `npm start`: the quickstart fleet — five agents configured by the YAML files in
 * examples/quickstart/agents, one of them a model agent — on the in-process transport, with
 * /metrics served. Shows a call in each mode, a refused call, a timeout, a malformed message
 * ending in the DLQ and the model agent's tool calls, then keeps serving (until Ctrl-C) so
 * the CLI can call the fleet through its session API.
 */

/** The repository root (this file runs from the sources or from dist/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const agentsDir = join(repoRoot(), 'examples', 'quickstart', 'agents');
// Kept across runs (DLQ, audit logs); QUICKSTART_DATA_DIR puts them elsewhere.
const dataDir = process.env['QUICKSTART_DATA_DIR'] ?? join(process.cwd(), '.agent-rpc', 'quickstart');
const runStarted = Date.now();
// A development token for the fleet's HTTP API; set AGENT_RPC_TOKEN to choose your own.
const token = process.env['AGENT_RPC_TOKEN'] ?? 'quickstart-dev-token';
const model = await startTriagerModel(process.env);
const ids = ['frontdesk', 'pr-reviewer', 'linter', 'auditor', 'triager'];
const daemon = await startDaemon(
  ids.map((id) => join(agentsDir, id)),
  builtinPlugins,
  { env: { ...process.env, ...model.env, QUICKSTART_DATA_DIR: dataDir, AGENT_RPC_TOKEN: token }, http: { port: Number(process.env['PORT'] ?? 9464) } },
);
const built = (id: string) => daemon.agents.find((a) => a.node.id === id)!;
const agent = (id: string) => built(id).node;
const [frontdesk, reviewer] = [agent('frontdesk'), agent('pr-reviewer')];
console.log(`agent-rpc quickstart: ${ids.length} agents from ${agentsDir} on the in-process bus`);
console.log(`metrics: http://127.0.0.1:${daemon.http.port}/metrics; DLQ and audit files in ${dataDir}`);
console.log(`model: the triager runs on ${model.description}\n`);

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
// The DLQ files outlive the run: show what this run kept.
const keptThisRun = async (node: typeof reviewer) => (await node.dlq.list()).filter((record) => record.at >= runStarted);
for (const record of await keptThisRun(reviewer)) {
  console.log(`${'dlq'.padEnd(16)} pr-reviewer kept ${record.kind} (${record.reason}): ${record.detail}`);
}
for (const record of await keptThisRun(frontdesk)) {
  console.log(`${'dlq'.padEnd(16)} frontdesk kept ${record.kind} (${record.reason}) for ${record.envelope?.capability}: the late deep-scan answer`);
}

console.log('');
await runTriageDemo(frontdesk, built('triager'));

const url = `http://127.0.0.1:${daemon.http.port}`;
console.log(`\nflows: ${url}/flows/${sync.correlationId} (the review and its nested lint call; every recent flow at ${url}/flows)`);
console.log(`serving: ${url} (/metrics, /healthz, /api/v1, /flows); Ctrl-C stops the fleet. Call it from another terminal:`);
console.log(`  AGENT_RPC_TOKEN=${token} node dist/bin/agent-rpc.js call agent://pr-reviewer review-pr --url ${url} --payload '{"prUrl":"pull/8","files":["a.ts"]}'`);
console.log(`A2A: pr-reviewer's Agent Card: ${daemon.a2a?.cardUrl('pr-reviewer') ?? 'not served, @a2a-js/sdk is not installed'} (every agent serves one; docs/a2a.md)`);
const code = await serveUntilSignalled(daemon);
await model.close();
console.log(`fleet stopped (exit ${code})`);
process.exit(code);
