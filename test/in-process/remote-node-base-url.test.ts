import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { runRemoteSession } from '../../src/remote-nodes/remote-session-client.js';
import { builtinPlugins } from '../../transports/plugins.js';

// RFC 027 writes api_base_url with the API's prefix (`https://prod.example.com/api/v1`);
// agent-rpc's own examples write the node's root. Both must reach the same endpoints.
const TOKEN = 'alice-base-url-token';
const configDir = mkdtempSync(join(tmpdir(), 'base-url-node-'));
let daemon: RunningDaemon;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
  const env = { ALICE_TOKEN: TOKEN, BOB_TOKEN: 'b', CAROL_TOKEN: 'c', VIC_TOKEN: 'v', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data') };
  daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
});
afterAll(() => daemon?.stop());

const nodeAt = (apiBaseUrl: string): RemoteNode => ({ name: 'assistant-node', description: '', apiBaseUrl, authType: 'token', authToken: new SecretValue(TOKEN), skipTlsVerify: false, timeoutMs: 30_000, source: 'config' });

describe('remote nodes - api_base_url', () => {
  it.each(['', '/', '/api/v1', '/api/v1/'])('remote nodes - a base URL ending in "%s" reaches the session API', async (suffix) => {
    const result = await runRemoteSession(nodeAt(`http://127.0.0.1:${daemon.http.port}${suffix}`), { message: `echo: via "${suffix}"` });
    expect(result.output).toBe(`via "${suffix}"`);
  });
});
