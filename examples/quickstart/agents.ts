import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AgentNode, JsonlDlqSink, PeerTable, RpcError, type PermissionRules } from '../../src/index.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';

/**
 * The quickstart fleet: four agents on one in-process bus, each with its DLQ in a local
 * JSONL file. `frontdesk` is where user actions enter; the others serve capabilities.
 */
export interface QuickstartFleet {
  readonly bus: MemoryBus;
  readonly frontdesk: AgentNode;
  readonly reviewer: AgentNode;
  readonly linter: AgentNode;
  readonly auditor: AgentNode;
  close(): Promise<void>;
}

const AGENT_IDS = ['frontdesk', 'pr-reviewer', 'linter', 'auditor'] as const;

export async function startQuickstartFleet(dataDir: string): Promise<QuickstartFleet> {
  mkdirSync(dataDir, { recursive: true });
  const bus = new MemoryBus();
  const peers = new PeerTable(AGENT_IDS.map((id) => ({ id, routes: [{ kind: 'memory' as const }] })));
  const sinks: JsonlDlqSink[] = [];
  const agent = (id: string, permissions?: PermissionRules): AgentNode => {
    const dlq = new JsonlDlqSink({ path: join(dataDir, `${id}.dlq.jsonl`) });
    sinks.push(dlq);
    return new AgentNode({ id, transports: [memoryTransport({ bus })], peers, dlq, permissions });
  };

  // The front desk may call reviewers, linters and the auditor — nothing that moves money.
  const frontdesk = agent('frontdesk', { allow: ['RequestAgent:*'], deny: ['RequestAgent:agent://billing/*'] });
  const reviewer = agent('pr-reviewer');
  const linter = agent('linter');
  const auditor = agent('auditor');

  linter.handle<{ files: string[] }>('lint', (input, ctx) => {
    console.log(`${'  nested call'.padEnd(16)} linter/lint from ${ctx.from} correlationId=${ctx.correlationId} causedBy=${ctx.envelope.causedBy}`);
    return { warnings: input.files.filter((f) => f.endsWith('.js')).length };
  });
  linter.handle('deep-scan', () => new Promise((resolve) => setTimeout(() => resolve({ findings: 0 }), 300)));

  reviewer.handle<{ prUrl: string; files: string[] }>('review-pr', async (input, ctx) => {
    await ctx.respond({ ok: true, data: { stage: 'linting' } }, { progress: true });
    // A call from inside a handler joins the flow: same correlationId, causedBy set.
    const lint = await reviewer.requestAgent<{ warnings: number }>({ to: 'linter', capability: 'lint', payload: { files: input.files } });
    if (lint.status !== 'ok') throw new RpcError('LINT_UNAVAILABLE', `lint ended ${lint.status}`, { retriable: true });
    return { prUrl: input.prUrl, verdict: lint.response!.warnings === 0 ? 'approve' : 'request-changes', warnings: lint.response!.warnings };
  });
  reviewer.handle<{ prUrl: string }>('summarize', async (input) => ({ summary: `${input.prUrl}: 3 files, 42 lines` }));

  for (const node of [frontdesk, reviewer, linter, auditor]) await node.start();
  return {
    bus,
    frontdesk,
    reviewer,
    linter,
    auditor,
    close: async () => {
      for (const node of [frontdesk, reviewer, linter, auditor]) await node.close();
      for (const sink of sinks) await sink.close();
    },
  };
}
