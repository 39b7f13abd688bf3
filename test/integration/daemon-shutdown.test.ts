import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { natsTransport } from '../../transports/nats/index.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { runNats } from '../support/nats-target.js';
import { scopeConfig } from '../support/scoped-config.js';

const nats = await runNats();
const configDir = mkdtempSync(join(tmpdir(), 'shutdown-config-'));

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/echo-nats', import.meta.url).pathname, configDir, { recursive: true });
  // Durable inboxes, and few handlers at once so that most requests wait in the broker.
  const capabilities = join(configDir, 'capabilities.yaml');
  writeFileSync(capabilities, readFileSync(capabilities, 'utf8').replace('nats: { servers: "${env:NATS_URL}" }', 'nats: { servers: "${env:NATS_URL}", durable: true }'));
  const agent = join(configDir, 'agent.yaml');
  writeFileSync(agent, readFileSync(agent, 'utf8').replace('limits: { drainTimeoutMs: 10000 }', 'limits: { drainTimeoutMs: 10000, concurrency: 2, maxInflight: 3 }'));
  scopeConfig(configDir, { natsSubjectPrefix: nats.subjectPrefix });
}, 60_000);

describe('graceful shutdown under load', () => {
  it('shutdown - SIGTERM during load: every accepted request is answered, before the stop or after the restart', async () => {
    const env = { NATS_URL: nats.url, AGENT_DATA_DIR: join(configDir, 'data') };
    const port = await freePort();
    let daemon = await DaemonProcess.start(configDir, env, port);
    const caller = new AgentNode({ id: 'load', transports: [natsTransport(nats.options)], peers: [{ id: 'echo-agent', routes: [{ kind: 'nats' }] }] });
    await caller.start();
    try {
      let signalled = false;
      const calls = Array.from({ length: 12 }, (_, n) =>
        caller.requestAgent<{ sleptMs: number }>({
          to: 'echo-agent',
          capability: 'slow',
          payload: { ms: 300 + n },
          timeoutMs: 60_000,
          // The first handler to start is the moment to stop the daemon: the rest are in flight or queued.
          onProgress: () => {
            if (signalled) return;
            signalled = true;
            daemon.signal('SIGTERM');
          },
        }),
      );
      let settled = 0;
      for (const call of calls) void call.then(() => settled++);
      await expect.poll(() => signalled, { timeout: 20_000 }).toBe(true);
      expect(await daemon.exited).toBe(0);
      // Handlers running at the signal finished and answered; the rest waited in the broker.
      const answeredBeforeExit = settled;
      expect(answeredBeforeExit).toBeGreaterThan(0);
      expect(answeredBeforeExit).toBeLessThan(12);
      daemon = await DaemonProcess.start(configDir, env, port);
      const results = await Promise.all(calls);
      expect(results.map((r) => r.status)).toEqual(Array(12).fill('ok'));
      expect(results.map((r) => r.response?.sleptMs)).toEqual(Array.from({ length: 12 }, (_, n) => 300 + n));
    } finally {
      await caller.close();
      daemon.signal('SIGTERM');
      await daemon.exited;
    }
  }, 120_000);
});
