import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeEnvelope, newMessageId } from '../../src/envelope/index.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { createPinoLogger } from '../../src/observability/pino-logger.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { natsTransport } from '../../transports/nats/index.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { foreignRequest } from '../support/envelopes.js';
import { until } from '../support/fleet.js';
import { runNats } from '../support/nats-target.js';
import { SessionApiClient } from '../support/session-api-client.js';

const TOKEN = 'alice-token-dlq';
let daemon: DaemonProcess | undefined;
afterAll(() => daemon?.signal('SIGKILL'));

function dlqLines(path: string): Array<{ kind: string; transport: string }> {
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
}

describe('DLQ topic', () => {
  it('dlq topic - a daemon on memory and the HTTP API keeps DLQ records in its sink and logs no failed topic publish', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'dlq-topic-'));
    cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
    const dataDir = join(configDir, 'data');
    const env = { ALICE_TOKEN: TOKEN, BOB_TOKEN: 'b-token-dlq', CAROL_TOKEN: 'c-token-dlq', VIC_TOKEN: 'v-token-dlq', AGENT_DATA_DIR: dataDir };
    daemon = await DaemonProcess.start(configDir, env, await freePort());
    const api = new SessionApiClient(`http://127.0.0.1:${daemon.httpPort}`);
    const records = join(dataDir, 'dlq.jsonl');
    for (let i = 0; i < 3; i++) {
      const envelope = foreignRequest({ to: 'agent://assistant', capability: 'no-such-capability', replyTo: 'http://replies', deadline: Date.now() + 60_000 });
      const created = await api.create(TOKEN, { envelope: Buffer.from(encodeEnvelope(envelope)).toString('utf8') });
      expect(created.status).toBe(201);
      await until(async () => dlqLines(records).length === i + 1);
    }
    expect(dlqLines(records).map((r) => r.kind)).toEqual(['unknown-capability', 'unknown-capability', 'unknown-capability']);
    expect(daemon.stdout).toContain('message sent to DLQ');
    expect(daemon.stdout).not.toContain('not published to the DLQ topic');
    expect(daemon.stdout).not.toContain('.dlq');
  }, 90_000);

  it('dlq topic - a NATS agent publishes its DLQ records to its DLQ subject', async () => {
    const nats = await runNats();
    const id = `dlq-${newMessageId().slice(0, 8)}`;
    const node = new AgentNode({ id, transports: [natsTransport(nats.options)] });
    const watcher = await nats.transport();
    const seen: Array<{ kind: string; transport: string }> = [];
    try {
      await node.start();
      await watcher.subscribe(`agents.${id}.dlq`, (d) => {
        seen.push(JSON.parse(Buffer.from(d.body).toString('utf8')));
        d.ack();
      });
      await watcher.publish(`agents.${id}.requests`, { body: encodeEnvelope(foreignRequest({ to: `agent://${id}`, capability: 'no-such-capability', replyTo: 'nats://nobody.listens' })) });
      await until(async () => seen.length === 1);
      expect(seen).toMatchObject([{ kind: 'unknown-capability', transport: 'nats' }]);
      expect(await node.dlq.list()).toHaveLength(1);
    } finally {
      await watcher.close();
      await node.close();
    }
  });

  it('dlq topic - on the in-process bus, copies nobody reads do not cost a warning per record', async () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    // The bus keeps two unread messages per topic; every copy after that cannot be published.
    const bus = new MemoryBus({ retainLimit: 2 });
    const node = new AgentNode({ id: 'svc', transports: [memoryTransport({ bus })], logger: createPinoLogger({ level: 'warn', destination }) });
    const raw = memoryTransport({ bus });
    try {
      await node.start();
      await raw.connect();
      for (let i = 0; i < 8; i++) await raw.publish('agents.svc.requests', { body: Buffer.from('[1,2,3]') });
      await until(async () => (await node.dlq.list()).length === 8);
      // The eight records of one reason are one warning in full; the repeats are summarised later.
      expect(lines.filter((line) => line.includes('message sent to DLQ')).length).toBe(1);
      expect(lines.filter((line) => line.includes('not published to the DLQ topic')).length).toBeLessThanOrEqual(1);
    } finally {
      await raw.close();
      await node.close();
    }
  });
});
