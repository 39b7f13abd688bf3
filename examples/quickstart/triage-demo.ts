import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentNode } from '../../src/index.js';
import { readAuditLog, type AuditRecord } from '../../src/audit/index.js';
import { dataDirOf } from '../../src/config/agent-config.js';
import type { BuiltAgent } from '../../src/runtime/build-agent.js';
import { show } from './show-call.js';
import { CRASH_LOG } from './triager-model.js';

const label = (text: string): string => text.padEnd(16);

/**
 * The model agent of the fleet at work: the front desk hands the triager an issue; the
 * triager runs bash under its policy, calls the linter as a tool, and asks before a command
 * the policy denies — the question reaches the front desk, which approves it here. Then
 * every tool call the triager made, as its audit log recorded them, the answer, and what
 * the whole call cost.
 */
export async function runTriageDemo(frontdesk: AgentNode, triager: BuiltAgent): Promise<void> {
  const dataDir = dataDirOf(triager.config);
  // The log attached to the issue, where the triager's bash and read tools work.
  const workspace = join(dataDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'crash.log'), CRASH_LOG);

  const result = await frontdesk.requestAgent<{ text: string }>({
    to: 'agent://triager',
    capability: 'triage-issue',
    payload: { title: 'Login fails after the 2.3 upgrade', body: 'Since 2.3 some users get a 500 at login; crash.log is attached.' },
    // A real model may take a while over several requests.
    timeoutMs: 120_000,
    onApproval: async (prompt) => {
      console.log(`${label('  approval')} triager asks: ${prompt.question} → approved`);
      return { approved: true, cancelled: false };
    },
  });
  show('triage', 'frontdesk → triager/triage-issue', result, result.status === 'ok' ? 'answer below' : undefined);

  await triager.audit.flush();
  for (const line of toolCallLines(await readAuditLog(join(dataDir, 'audit.jsonl')), result.correlationId)) console.log(`${label('  tool call')} ${line}`);
  if (result.status === 'ok') console.log(`${label('answer')} ${result.response?.text}`);
  const usage = result.usage;
  if (usage) {
    console.log(`${label('usage')} ${usage.inputTokens} input + ${usage.outputTokens} output tokens over ${usage.modelRequests} model requests, $${usage.costUsd.toFixed(6)}`);
  }
}

/**
 * One line per tool call of the flow: `tool_call` records say the tool, its outcome and
 * arguments; a bash call's `tool_bash` record, written just before, says the command, how
 * the policy decided and the exit code.
 */
function toolCallLines(records: readonly AuditRecord[], correlationId: string): string[] {
  const lines: string[] = [];
  const bashRuns: AuditRecord[] = [];
  for (const record of records) {
    if (record['correlationId'] !== correlationId) continue;
    if (record.kind === 'tool_bash') bashRuns.push(record);
    if (record.kind !== 'tool_call') continue;
    const tool = String(record['tool']);
    const bash = tool === 'bash' ? bashRuns.shift() : undefined;
    const what = bash ? `${bash['command']} (${bash['decision']}, exit ${bash['exitCode'] ?? '-'})` : String((record['details'] as { arguments?: unknown } | undefined)?.arguments ?? '');
    lines.push(`${tool.padEnd(14)} ${String(record['outcome']).padEnd(5)} ${what}`);
  }
  return lines;
}
