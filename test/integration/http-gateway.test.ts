import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { httpGateway } from '../../src/remote-nodes/http-gateway/index.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { until } from '../support/fleet.js';
import { writeHttpNodeConfig } from '../support/http-node-config.js';
import { SessionApiClient } from '../support/session-api-client.js';

// Two daemons, alpha and beta, each reaching the other through its session API over HTTP;
// every envelope is HMAC-signed, so auth is checked on both sides as for broker traffic.
const key = randomBytes(32);
const KEYS = JSON.stringify({ keys: { k1: `base64:${key.toString('base64')}` } });
const tokens = { alpha: 'alpha-inbound-token', beta: 'beta-inbound-token', admin: 'admin-token' };
const dirs = {
  alpha: writeHttpNodeConfig({ id: 'alpha', peers: ['beta'], hmac: { keyId: 'k1', keysRefEnv: 'FLEET_KEYS' } }),
  beta: writeHttpNodeConfig({ id: 'beta', peers: ['alpha'], hmac: { keyId: 'k1', keysRefEnv: 'FLEET_KEYS' } }),
};
const daemons: DaemonProcess[] = [];
let ports: { alpha: number; beta: number };
let alphaApi: SessionApiClient;

beforeAll(async () => {
  ports = { alpha: await freePort(), beta: await freePort() };
  const envOf = (self: 'alpha' | 'beta', other: 'alpha' | 'beta') => ({
    FLEET_KEYS: KEYS,
    INBOUND_TOKEN: tokens[self],
    ADMIN_TOKEN: tokens.admin,
    PEER_URL: `http://127.0.0.1:${ports[other]}`,
    PEER_TOKEN: tokens[other],
    NODE_STORE_KEY: randomBytes(32).toString('base64'),
  });
  daemons.push(...(await Promise.all([DaemonProcess.start(dirs.alpha, envOf('alpha', 'beta'), ports.alpha), DaemonProcess.start(dirs.beta, envOf('beta', 'alpha'), ports.beta)])));
  alphaApi = new SessionApiClient(`http://127.0.0.1:${ports.alpha}`);
}, 120_000);
afterAll(() => {
  for (const daemon of daemons) daemon.signal('SIGKILL');
});

async function askAlpha(message: string): Promise<any> {
  const { body } = await alphaApi.create(tokens.alpha, { message, safeMode: false });
  return alphaApi.waitFor(tokens.alpha, body.sessionId);
}

/** A caller outside both daemons, with the fleet's key, reaching beta's API with `token`. */
async function outsideCaller(token: string, port = ports.beta): Promise<AgentNode> {
  const node: RemoteNode = { name: 'beta-node', description: '', apiBaseUrl: `http://127.0.0.1:${port}`, authType: 'token', authToken: new SecretValue(token), skipTlsVerify: false, timeoutMs: 30_000, source: 'config' };
  const caller = new AgentNode({
    id: `outside-${randomBytes(3).toString('hex')}`,
    transports: [],
    gateways: [httpGateway({ resolver: { list: async () => [node], get: async (name) => (name === node.name ? node : undefined) } })],
    peers: [{ id: 'agent://beta', routes: [{ kind: 'http', requestsTopic: 'beta-node' }] }],
    auth: hmacAuth({ keys: new Map([['k1', key]]), signingKeyId: 'k1' }),
  });
  await caller.start();
  return caller;
}

function betaSessions(): Array<{ status: string; messages: Array<{ content: string }> }> {
  const dir = join(dirs.beta, 'data', 'sessions');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

describe('http gateway between two daemons', () => {
  it('http - an agent calls an agent on another node; the signed answer comes back', async () => {
    const done = await askAlpha('ask: agent://beta: echo: hello beta');
    expect(done.sessionState.status).toBe('completed');
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'agent://beta says: hello beta' });
    const metrics = await (await fetch(`http://127.0.0.1:${ports.beta}/metrics`)).text();
    expect(metrics).toMatch(/agent_rpc_auth_decisions_total\{agent="beta",provider="hmac",decision="accept",reason=""\} [1-9]/);
  });

  it('http - the nodes call each other: alpha → beta → alpha is one flow the guard allows', async () => {
    const done = await askAlpha('ask: agent://beta: ask: agent://alpha: echo: round trip');
    expect(done.messages.at(-1).content).toBe('agent://beta says: agent://alpha says: round trip');
  });

  it("http - the remote handler's typed error reaches the caller as data", async () => {
    const done = await askAlpha('ask: agent://beta: fail');
    expect(done.sessionState.status).toBe('failed');
    expect(done.error).toEqual({ code: 'SCRIPTED_FAILURE', message: 'the scripted failure' });
  });

  it('http - a wrong API token is a typed remote API error (HTTP 401), not a hang', async () => {
    const caller = await outsideCaller('not-the-token');
    try {
      const result = await caller.requestAgent({ to: 'agent://beta', capability: 'assist', payload: { message: 'echo: x' }, timeoutMs: 20_000 });
      expect(result.status).toBe('error');
      expect(result.error).toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 401 } });
      expect(result.error?.message).toMatch(/^remote API error \(HTTP 401\): /);
      expect(result.error?.message).not.toContain('not-the-token');
    } finally {
      await caller.close();
    }
  });

  it('http - a node nobody listens on is unreachable, and the error carries no credential', async () => {
    const caller = await outsideCaller('secret-token-value', await freePort());
    try {
      const result = await caller.requestAgent({ to: 'agent://beta', capability: 'assist', payload: { message: 'echo: x' }, timeoutMs: 20_000 });
      expect(result.error).toMatchObject({ code: 'EAGENTRPC_REMOTE_UNREACHABLE' });
      expect(JSON.stringify(result.error?.toWire())).not.toContain('secret-token-value');
    } finally {
      await caller.close();
    }
  });

  it("http - an event the remote node never got is kept in the caller's DLQ as remote-failed", async () => {
    const caller = await outsideCaller(tokens.beta, await freePort());
    try {
      const sent = await caller.requestAgent({ to: 'agent://beta', capability: 'assist', payload: { message: 'echo: lost' }, mode: 'fire-and-forget' });
      expect(sent.status).toBe('ok');
      await until(async () => (await caller.dlq.list()).length > 0, 20_000);
      const [record] = await caller.dlq.list();
      expect(record).toMatchObject({ kind: 'remote-failed', reason: 'EAGENTRPC_REMOTE_UNREACHABLE', transport: 'http', coordinates: { topic: 'beta-node' }, envelope: { capability: 'assist', to: 'agent://beta' } });
    } finally {
      await caller.close();
    }
  });

  it("http - the caller's deadline ends the remote session; aborting the call cancels it", async () => {
    const caller = await outsideCaller(tokens.beta);
    try {
      const timedOut = await caller.requestAgent({ to: 'agent://beta', capability: 'assist', payload: { message: 'wait: 20001' }, timeoutMs: 500 });
      expect(timedOut.status).toBe('timeout');
      const controller = new AbortController();
      const aborted = caller.requestAgent({ to: 'agent://beta', capability: 'assist', payload: { message: 'wait: 20002' }, timeoutMs: 20_000, signal: controller.signal });
      await until(() => betaSessions().some((s) => s.messages[0]?.content.includes('wait: 20002')));
      controller.abort();
      expect((await aborted).error).toMatchObject({ code: 'EAGENTRPC_ABANDONED' });
      // The session carries the caller's deadline: the remote node ends it there itself (failed,
      // timed out), or the caller's cancel, sent at the same moment, ends it first.
      const ended = (ms: string, statuses: readonly string[]) => betaSessions().some((s) => s.messages[0]?.content.includes(`wait: ${ms}`) && statuses.includes(s.status));
      await until(() => ended('20001', ['failed', 'cancelled']) && ended('20002', ['cancelled']));
    } finally {
      await caller.close();
    }
  });

  it('remote nodes API - admin only; stored nodes override config ones and never show a credential', async () => {
    const nodes = (method: string, path: string, token: string, body?: unknown) => alphaApi.call(method, `/api/v1/remote-nodes${path}`, token, body);
    expect((await nodes('GET', '', tokens.alpha)).status).toBe(403);
    const listed = await nodes('GET', '', tokens.admin);
    expect(listed.body.nodes).toEqual([expect.objectContaining({ name: 'peer-node', source: 'config', has_auth_token: true })]);

    // A stored node of the same name wins: alpha now reaches "beta" at a port nobody serves.
    const deadPort = await freePort();
    const stored = await nodes('PUT', '/peer-node', tokens.admin, { api_base_url: `http://127.0.0.1:${deadPort}`, auth_token: 'stored-secret-token', timeout: '5s' });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ name: 'peer-node', source: 'store', has_auth_token: true, timeout: 5000 });
    expect(JSON.stringify(stored.body)).not.toContain('stored-secret-token');
    expect(readFileSync(join(dirs.alpha, 'data', 'remote-nodes.json'), 'utf8')).not.toContain('stored-secret-token');
    const unreachable = await askAlpha('ask: agent://beta: echo: via the store');
    expect(unreachable.error).toMatchObject({ code: 'EAGENTRPC_REMOTE_UNREACHABLE' });

    expect((await nodes('POST', '', tokens.admin, { name: 'peer-node', api_base_url: 'http://x', auth_type: 'none' })).status).toBe(409);
    expect((await nodes('POST', '', tokens.admin, { name: 'Bad Name', api_base_url: 'http://x', auth_type: 'none' })).body.error).toMatch(/^bad request: name: /);
    expect((await nodes('DELETE', '/peer-node', tokens.admin)).status).toBe(204);
    expect((await nodes('DELETE', '/peer-node', tokens.admin)).status).toBe(409);
    expect((await nodes('DELETE', '/nothing', tokens.admin)).status).toBe(404);
    expect((await askAlpha('ask: agent://beta: echo: config again')).messages.at(-1).content).toBe('agent://beta says: config again');
  });
});
