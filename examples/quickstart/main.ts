import { join } from 'node:path';
import type { CallResult } from '../../src/index.js';
import { memoryTransport } from '../../transports/memory/index.js';
import { startQuickstartFleet } from './agents.js';

/**
 * `npm start`: the quickstart fleet on the in-process transport. Shows a call in each
 * mode, a refused call, a timeout and a malformed message ending in the DLQ.
 */
function show(label: string, route: string, result: CallResult): void {
  const detail = result.status === 'ok' ? JSON.stringify(result.response ?? null) : `${result.error?.code}: ${result.error?.message}`;
  console.log(
    `${label.padEnd(16)} ${route.padEnd(38)} status=${result.status.padEnd(9)} correlationId=${result.correlationId} latency=${result.latencyMs.toFixed(2)}ms  ${detail}`,
  );
}

const dataDir = join(process.cwd(), '.agent-rpc', 'quickstart');
const fleet = await startQuickstartFleet(dataDir);
const { frontdesk, auditor, reviewer } = fleet;
console.log(`agent-rpc quickstart: 4 agents on the in-process bus; DLQ files in ${dataDir}\n`);

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

const timedOut = await frontdesk.requestAgent({ to: 'linter', capability: 'deep-scan', payload: {}, timeoutMs: 100 });
show('timeout', 'frontdesk → linter/deep-scan', timedOut);

// A peer that writes garbage: the inbox keeps it, with a reason, in the DLQ.
const rogue = memoryTransport({ bus: fleet.bus });
await rogue.publish('agents.pr-reviewer.requests', { body: Buffer.from('{"version":1,"kind":"request","kind":"event"}') });
await rogue.close();

await new Promise((resolve) => setTimeout(resolve, 400));
for (const record of await reviewer.dlq.list()) {
  console.log(`${'dlq'.padEnd(16)} pr-reviewer kept ${record.kind} (${record.reason}): ${record.detail}`);
}
for (const record of await frontdesk.dlq.list()) {
  console.log(`${'dlq'.padEnd(16)} frontdesk kept ${record.kind} (${record.reason}) for ${record.envelope?.capability}: the late deep-scan answer`);
}
await fleet.close();
