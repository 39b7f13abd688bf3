import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { runNats } from '../support/nats-target.js';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { copyFleet } from '../support/seed-fleet.js';

// Two agents configured in the design document's shapes (list-form transports with
// `subjects`, `agent:` peers, event-sources.yaml as a list), served by `agent-rpc serve` on
// the run's NATS. The orchestrator reaches the translator with the seed's
// `auth: {provider: oauth2-client, clientSecretRef: secret://platform/...}`, minted by a real
// OpenID provider; the translator requires those tokens.
const nats = await runNats();
const client = { clientId: 'decl-agent-a', clientSecret: `secret-${randomBytes(16).toString('hex')}`, scopes: ['rpc:invoke'] };
const fleet = copyFleet('seed-nats', randomBytes(4).toString('hex'));
const secretsDir = mkdtempSync(join(tmpdir(), 'seed-secrets-'));
let issuer: OidcIssuer;
let env: NodeJS.ProcessEnv;
const daemons: DaemonProcess[] = [];

beforeAll(async () => {
  issuer = await startOidcIssuer({ clients: [client], resource: 'urn:agent-rpc:translator', scopes: ['rpc:invoke'] });
  mkdirSync(join(secretsDir, 'platform'));
  writeFileSync(join(secretsDir, 'platform', 'decl-agent-a-client-secret'), `${client.clientSecret}\n`);
  env = {
    NATS_URL: nats.url,
    OIDC_ISSUER: issuer.issuer,
    OIDC_AUDIENCE: issuer.audience,
    OIDC_TOKEN_ENDPOINT: issuer.tokenEndpoint,
    AGENT_RPC_SECRETS_DIR: secretsDir,
  };
  for (const agent of [fleet['translator']!, fleet['orchestrator']!]) {
    daemons.push(await DaemonProcess.start(agent.dir, { ...env, AGENT_DATA_DIR: join(agent.dir, 'data') }, await freePort()));
  }
}, 120_000);
afterAll(async () => {
  for (const daemon of daemons) daemon.signal('SIGKILL');
  await issuer?.close();
});

describe('config files in the design document shapes, served over NATS', () => {
  it('seed config nats - an agent calls another through seed-shape peers, with oauth2-client tokens from a secret:// client secret', async () => {
    const before = issuer.tokenRequests;
    const payload = { to: `agent://${fleet['translator']!.id}`, capability: 'translate', payload: { text: 'hello', to: 'fr' } };
    const run = await runCliProcess(['call', `agent://${fleet['orchestrator']!.id}`, 'relay', '--payload', JSON.stringify(payload), '--timeout', '30000', '--config', fleet['orchestrator']!.dir], {
      ...env,
      AGENT_DATA_DIR: join(fleet['orchestrator']!.dir, 'data'),
      AGENT_HTTP_PORT: '0',
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', response: { relayed: { text: '[fr] hello' } } });
    expect(issuer.tokenRequests).toBeGreaterThan(before);
  });

  it('seed config nats - rpc peers --verify shows the route the seed-shape peer names, and pings it', async () => {
    const translator = fleet['translator']!.id;
    const run = await runCliProcess(['rpc', 'peers', '--verify', '--json', '--timeout', '30000', '--config', fleet['orchestrator']!.dir], { ...env, AGENT_DATA_DIR: join(fleet['orchestrator']!.dir, 'data'), AGENT_HTTP_PORT: '0' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ id: `agent://${translator}`, transports: `nats:agents.${translator}.requests`, verify: { ok: true } });
  });
});
