import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { JsonlDlqSink } from '../../src/dlq/jsonl-file-sink.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { until } from '../../src/testing/wait.js';
import { amqpTransport } from '../../transports/amqp/index.js';
import { runAmqp } from '../support/amqp-target.js';

const CLIENT = fileURLToPath(new URL('../fixtures/processes/foreign-amqp-client.py', import.meta.url));
const amqp = await runAmqp();
const key = randomBytes(32);
const dlq = new JsonlDlqSink({ path: join(mkdtempSync(join(tmpdir(), 'foreign-amqp-')), 'dlq.jsonl') });
let agent: AgentNode;

beforeAll(async () => {
  const auth = hmacAuth({ keys: new Map([['fleet-1', key]]), signingKeyId: 'fleet-1' });
  agent = new AgentNode({ id: 'echoer', transports: [amqpTransport({ url: amqp.url, prefix: amqp.prefix })], auth, dlq });
  agent.handle('echo', (input) => ({ echoed: input }));
  await agent.start();
});
afterAll(() => agent?.close());

describe('foreign client - a Python (pika) client written from docs/transports/amqp.md calls an agent over RabbitMQ', () => {
  it('foreign client amqp - requests published as application/json or text/plain reach the inbox as the exact bytes; the same signed bytes published again are refused as replayed', async () => {
    const run = await promisify(execFile)('/usr/bin/python3', [CLIENT, amqp.url, amqp.prefix, 'echoer', 'fleet-1', key.toString('hex')], { timeout: 60_000 });
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ case: 'json', answered: true, payload: { data: { echoed: { text: 'héllo ✓ from pika' } }, ok: true } });
    expect(lines[1]).toEqual({ case: 'text', answered: true, payload: { data: { echoed: { text: 'plain' } }, ok: true } });
    expect(lines[2]).toMatchObject({ case: 'replayed', answered: true, payload: { ok: false, error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: 'replayed' } } } });
    // The 19 bytes {"buffer": 5000000} are kept as they were published, not as what a client library made of them.
    await until(async () => (await dlq.list()).length >= 2);
    const records = await dlq.list();
    expect(records.map((record) => [record.kind, record.reason])).toEqual([
      ['auth-rejected', 'replayed'],
      ['decode-failed', 'unknown-field'],
    ]);
    expect(Buffer.from(records[1]!.rawBase64, 'base64').toString('utf8')).toBe('{"buffer": 5000000}');
  });
});
