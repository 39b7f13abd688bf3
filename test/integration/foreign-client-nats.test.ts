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
import { natsTransport } from '../../transports/nats/index.js';
import { runNats } from '../support/nats-target.js';

const CLIENT = fileURLToPath(new URL('../fixtures/processes/foreign-hmac-client.py', import.meta.url));
const nats = await runNats();
const key = randomBytes(32);
const dlq = new JsonlDlqSink({ path: join(mkdtempSync(join(tmpdir(), 'foreign-client-')), 'dlq.jsonl') });
let agent: AgentNode;

beforeAll(async () => {
  agent = new AgentNode({ id: 'echoer', transports: [natsTransport(nats.options)], auth: hmacAuth({ keys: new Map([['fleet-1', key]]), signingKeyId: 'fleet-1' }), dlq });
  agent.handle('echo', (input) => ({ echoed: input }));
  await agent.start();
});
afterAll(() => agent?.close());

describe('foreign client - a Python client written from the documents calls an agent over raw NATS', () => {
  it('foreign client - its HMAC-signed, pretty-printed request is answered with a response whose signature it verifies; a request changed after signing is refused (auth-rejected, DLQ)', async () => {
    const { hostname, port } = new URL(nats.url);
    const run = await promisify(execFile)('python3', [CLIENT, hostname, port, nats.subjectPrefix, 'echoer', 'fleet-1', key.toString('hex')], { timeout: 40_000 });
    const [signed, tampered] = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(signed).toEqual({ case: 'signed', causedByMatches: true, payload: { data: { echoed: { text: 'héllo ✓ from Python' } }, ok: true }, responseSignatureOk: true });
    expect(tampered).toMatchObject({ case: 'tampered', causedByMatches: true, responseSignatureOk: true, payload: { ok: false, error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: 'bad-signature' } } } });
    expect((await dlq.list()).map((record) => [record.kind, record.reason])).toEqual([['auth-rejected', 'bad-signature']]);
  });
});
