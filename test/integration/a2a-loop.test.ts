import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { auditFileRecords, auditRecordsOnceWritten } from '../support/audit-file.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { SessionApiClient } from '../support/session-api-client.js';

// Two `agent-rpc serve` processes that call each other as A2A peers: alpha → (A2A) beta →
// (A2A) alpha → … The a2a transport sends the call's flow in the message metadata and the
// A2A server continues it, so the guard stops the loop as it stops one over a broker.
const TOKEN = 'a2a-loop-token-5c1e';
const RELAY_HANDLER = new URL('../fixtures/handlers/relay-a2a-peer.ts', import.meta.url).pathname;
const processes: DaemonProcess[] = [];
afterEach(async () => {
  for (const daemon of processes.splice(0)) {
    daemon.signal('SIGTERM');
    await daemon.exited;
  }
});

/** An agent on the in-process bus whose `relay` calls `peer`, reached over A2A at `peerPort`; 3 agent calls a minute per flow. */
function relayConfig(id: string, peer: string, peerPort: number): string {
  const dir = mkdtempSync(join(tmpdir(), `a2a-loop-${id}-`));
  writeFileSync(
    join(dir, 'agent.yaml'),
    `version: 1
agent: { id: ${id} }
log: { level: warn }
dataDir: ./data
http: { port: "\${env:AGENT_HTTP_PORT}" }
api:
  tokens: [{ user: operator, role: operator, tokenRef: "\${env:API_TOKEN}" }]
handlers: { relay: ${RELAY_HANDLER} }
session: { capability: relay }
guard: { maxCallsPerMinute: 3 }
`,
  );
  writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  memory: {}\ncapabilities:\n  - name: relay\n    inputSchema: { type: object }\n`);
  writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n  - id: agent://${peer}\n    transports: [{ kind: a2a, url: "http://127.0.0.1:${peerPort}/a2a/${peer}/.well-known/agent-card.json", tokenRef: "\${env:API_TOKEN}" }]\n`);
  return dir;
}


describe('a2a - loops across A2A hops', () => {
  it('a2a - alpha → (A2A) beta → (A2A) alpha … is refused by the guard, the first caller sees its code, every hop shares one flow', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = [relayConfig('alpha', 'beta', portB), relayConfig('beta', 'alpha', portA)];
    processes.push(
      ...(await Promise.all([
        DaemonProcess.start(a, { API_TOKEN: TOKEN, PEER_ID: 'agent://beta' }, portA),
        DaemonProcess.start(b, { API_TOKEN: TOKEN, PEER_ID: 'agent://alpha' }, portB),
      ])),
    );

    const api = new SessionApiClient(`http://127.0.0.1:${portA}`);
    const { body } = await api.create(TOKEN, { message: 'start the loop', safeMode: false });
    const done = await api.waitFor(TOKEN, body.sessionId);

    expect(done.sessionState.status).toBe('failed');
    expect(done.error.code).toBe('EAGENTRPC_GUARD_REJECTED');
    const dataDirs = [join(a, 'data'), join(b, 'data')];
    const refusals = await auditRecordsOnceWritten(dataDirs, (record) => record.kind === 'guard_reject');
    expect(refusals).toEqual([expect.objectContaining({ rule: 'rate' })]);
    // Every request either agent received (the session's, then each A2A hop's) belongs to the session's flow.
    await auditRecordsOnceWritten(dataDirs, (record) => record.kind === 'auth_check' && record.envelopeKind === 'request' && record.peerId === 'agent://a2a', 3);
    const requests = dataDirs.flatMap(auditFileRecords).filter((record) => record.kind === 'auth_check' && record.envelopeKind === 'request');
    expect(requests.filter((record) => record.peerId === 'agent://a2a').length).toBeGreaterThanOrEqual(3);
    expect(new Set(requests.map((record) => record.correlationId)).size).toBe(1);
  }, 120_000);
});
