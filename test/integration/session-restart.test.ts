import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { SessionApiClient } from '../support/session-api-client.js';

const configDir = mkdtempSync(join(tmpdir(), 'session-restart-'));
cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
const token = 'alice-restart-token';
const env = { ALICE_TOKEN: token, BOB_TOKEN: 'b', CAROL_TOKEN: 'c', VIC_TOKEN: 'v', AGENT_DATA_DIR: join(configDir, 'data') };
let daemon: DaemonProcess | undefined;

afterAll(() => daemon?.signal('SIGKILL'));

describe('sessions across a restart of agent-rpc serve', () => {
  it('sessions - finished sessions survive a crash; the one running at the crash is reloaded as failed', async () => {
    const port = await freePort();
    daemon = await DaemonProcess.start(configDir, env, port);
    const api = new SessionApiClient(`http://127.0.0.1:${port}`);
    const finished = (await api.create(token, { message: 'echo: kept' })).body.sessionId;
    await api.waitFor(token, finished);
    const running = (await api.create(token, { message: 'wait: 60000' })).body.sessionId;
    expect((await api.get(token, running)).body.sessionState.working).toBe(true);

    daemon.signal('SIGKILL');
    await daemon.exited;
    daemon = await DaemonProcess.start(configDir, env, port);

    const kept = (await api.get(token, finished)).body;
    expect(kept.sessionState.status).toBe('completed');
    expect(kept.messages.at(-1)).toEqual({ role: 'assistant', content: 'kept' });
    const interrupted = (await api.get(token, running)).body;
    expect(interrupted.sessionState).toEqual({ working: false, hasPendingPrompt: false, status: 'failed' });
    expect(interrupted.error).toEqual({ code: 'EAGENTRPC_ABANDONED', message: 'the node restarted while the session ran' });
    // The id stays taken for its user.
    expect((await api.create(token, { sessionId: running, message: 'echo: again' })).body.status).toBe('already_exists');
  }, 120_000);
});
