import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAuditLog } from '../../src/audit/file-audit-log.js';
import { readAuditLog } from '../../src/audit/read-audit-log.js';
import { encodeEnvelope, newMessageId } from '../../src/envelope/index.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { natsTransport } from '../../transports/nats/index.js';
import { foreignRequest } from '../support/envelopes.js';
import { until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';

const nats = await runNats();

describe('tenant scope - audit', () => {
  it('tenant scope - an envelope of another tenant is dead-lettered and audited with its reason', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tenant-audit-')), 'audit.jsonl');
    const audit = await FileAuditLog.open({ path });
    const id = `svc-${newMessageId().slice(0, 8)}`;
    const node = new AgentNode({ id, tenantId: 'acme', transports: [natsTransport(nats.options)], audit });
    node.handle('work', () => 'ran');
    const raw = await nats.transport();
    try {
      await node.start();
      const envelope = foreignRequest({ to: `agent://${id}`, tenantId: 'globex', replyTo: 'nats://nobody.listens' });
      await raw.publish(`agents.${id}.acme.requests`, { body: encodeEnvelope(envelope) });
      await until(async () => (await node.dlq.list()).length === 1);
      expect(await node.dlq.list()).toMatchObject([{ kind: 'tenant-mismatch', reason: 'tenant-mismatch', envelope: { messageId: envelope.messageId } }]);
      await node.close();
      await audit.close();
      const records = await readAuditLog(path);
      expect(records).toMatchObject([
        { kind: 'tenant_reject', agentId: id, peerId: 'agent://tester', reason: 'tenant-mismatch', tenantId: 'globex', expectedTenantId: 'acme', messageId: envelope.messageId },
      ]);
    } finally {
      await raw.close();
      await node.close();
      await audit.close();
    }
  });
});
