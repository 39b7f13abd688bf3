import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startNatsServer, type NatsServerHandle } from '../../tools/brokers/index.js';
import { natsTransport } from '../../transports/nats/index.js';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.js';

let certs: TestCertificates;
let server: NatsServerHandle;

beforeAll(async () => {
  certs = createTestCertificates();
  server = await startNatsServer({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, caFile: certs.caFile } });
}, 60_000);
afterAll(() => server?.stop());

const tlsOptions = (cert: string, key: string) => ({ connection: { tls: { ca: certs.ca, cert, key } } });

describe('nats - mutual TLS settings pass through to the client', () => {
  it('nats mtls - agents with certificates the broker trusts call each other', async () => {
    const options = tlsOptions(certs.clientCert, certs.clientKey);
    const billing = new AgentNode({ id: 'billing', transports: [natsTransport({ servers: server.url, ...options })] });
    const caller = new AgentNode({ id: 'caller', transports: [natsTransport({ servers: server.url, ...options })], peers: [{ id: 'billing', routes: [{ kind: 'nats' }] }] });
    billing.handle('charge', (input) => ({ charged: input }));
    await billing.start();
    await caller.start();
    try {
      expect(await caller.requestAgent({ to: 'billing', capability: 'charge', payload: 42 })).toMatchObject({ status: 'ok', response: { charged: 42 } });
    } finally {
      await caller.close();
      await billing.close();
    }
  });

  it('nats mtls - the broker refuses a client whose certificate another CA signed', async () => {
    // The plain client, without the transport's reconnect-forever policy, so the refusal surfaces.
    const { connect } = await import('nats');
    const trusted = await connect({ servers: server.url, tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }, reconnect: false, timeout: 5000 });
    await trusted.close();
    await expect(connect({ servers: server.url, tls: { ca: certs.ca, cert: certs.strangerCert, key: certs.strangerKey }, reconnect: false, timeout: 5000 })).rejects.toThrow();
  });

  it('nats mtls - the transport fails to start with a typed error when the broker refuses its certificate', async () => {
    const refused = natsTransport({ servers: server.url, connectTimeoutMs: 1_500, connection: { tls: { ca: certs.ca, cert: certs.strangerCert, key: certs.strangerKey } } });
    const error = await refused.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EAGENTRPC_CONNECT_FAILED', details: { servers: [server.url] } });
    expect((error as Error).message).toMatch(/^could not connect to NATS \(nats:\/\/127\.0\.0\.1:\d+\) within 1500 ms: /);
    await refused.close();
  });
});
