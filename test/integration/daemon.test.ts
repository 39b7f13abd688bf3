import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { natsTransport } from '../../transports/nats/index.js';
import { serveEchoFixtureOn } from '../support/daemon-on-broker.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { runNats } from '../support/nats-target.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { copyScopedConfig } from '../support/scoped-config.js';
import { until } from '../support/fleet.js';

const nats = await runNats();
const served = serveEchoFixtureOn({ kind: 'nats', transport: 'nats: { servers: "${env:NATS_URL}" }', env: { NATS_URL: nats.url }, scope: { natsSubjectPrefix: nats.subjectPrefix } });
const { configDir, env } = served;

describe('agent-rpc serve and the operator commands, on real NATS', () => {
  it('daemon - healthz answers; call reaches a configured capability', async () => {
    expect((await fetch(`http://127.0.0.1:${served.daemon.httpPort}/healthz`)).status).toBe(200);
    const run = await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', '{"hello":"daemon"}', '--config', configDir], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', response: { hello: 'daemon' } });
  });

  it('daemon - emit sends an event; the handler agent.yaml names under events runs it', async () => {
    const run = await runCliProcess(['emit', 'agent://echo-agent', 'echo', '--payload', '{"note":"from the cli"}', '--config', configDir], env);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { status: string; correlationId: string };
    expect(printed).toMatchObject({ status: 'ok', correlationId: expect.any(String) });
    const written = join(env['AGENT_DATA_DIR']!, 'echo-events.jsonl');
    await until(() => existsSync(written) && readFileSync(written, 'utf8').includes(printed.correlationId), 20_000);
    expect(readFileSync(written, 'utf8')).toContain('{"payload":{"note":"from the cli"}');
  });

  it('daemon - emit refuses a payload that is not JSON (exit 2, nothing sent)', async () => {
    const run = await runCliProcess(['emit', 'agent://echo-agent', 'echo', '--payload', '{oops', '--config', configDir], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--payload must be JSON');
  });

  it('daemon - $ping and $capabilities answer liveness and discovery', async () => {
    const ping = JSON.parse((await runCliProcess(['call', 'agent://echo-agent', '$ping', '--config', configDir], env)).stdout);
    expect(ping).toMatchObject({ status: 'ok', response: { agent: 'agent://echo-agent' } });
    const caps = JSON.parse((await runCliProcess(['call', 'agent://echo-agent', '$capabilities', '--config', configDir], env)).stdout);
    expect(caps.response.capabilities.map((c: { name: string }) => c.name)).toEqual(['echo', 'slow']);
  });

  it('daemon - rpc peers --verify pings each peer; rpc capabilities lists the surface', async () => {
    const peers = await runCliProcess(['rpc', 'peers', '--verify', '--json', '--config', configDir], env);
    expect(peers.code).toBe(0);
    expect(JSON.parse(peers.stdout)).toMatchObject({ id: 'agent://echo-agent', transports: 'nats', verify: { ok: true } });
    const caps = await runCliProcess(['rpc', 'capabilities', '--config', configDir], env);
    expect(caps.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('daemon - a call to an unknown capability exits 1 with the typed error', async () => {
    // A deadline far off: the dlq test below requeues this message, and a request requeued
    // after its deadline is refused as deadline-expired instead of running again.
    const run = await runCliProcess(['call', 'agent://echo-agent', 'nope', '--config', configDir, '--timeout', '600000'], env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY', message: expect.any(String), retriable: false } });
  });

  it('daemon - call prints a timed-out call\'s error with its message', async () => {
    const run = await runCliProcess(['call', 'agent://echo-agent', 'slow', '--payload', '{"ms":2000}', '--config', configDir, '--timeout', '300'], env);
    expect(run.code).toBe(1);
    const printed = JSON.parse(run.stdout) as { status: string; error: { code: string; message: unknown } };
    expect(printed).toMatchObject({ status: 'timeout', error: { code: 'EAGENTRPC_TIMEOUT' } });
    expect(printed.error.message).toEqual(expect.stringMatching(/\S/));
  });

  it('daemon - dlq list, show and requeue operate on the running agent', async () => {
    const listed = await runCliProcess(['dlq', 'list', '--json', '--kind', 'unknown-capability', '--config', configDir], env);
    expect(listed.code).toBe(0);
    const records = listed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; envelope: { capability: string } });
    expect(records.map((r) => r.envelope.capability)).toEqual(['nope']);
    const shown = await runCliProcess(['dlq', 'show', records[0]!.id, '--config', configDir], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: records[0]!.id, kind: 'unknown-capability', raw: expect.stringContaining('"capability":"nope"') });
    const requeued = await runCliProcess(['dlq', 'requeue', records[0]!.id, '--config', configDir], env);
    expect(requeued.code).toBe(0);
    expect(JSON.parse(requeued.stdout)).toMatchObject({ transport: 'nats', topic: 'agents.echo-agent.requests' });
    // Through the pipeline again: still no such capability, so a second record appears.
    // Each poll is a CLI process of its own: on a loaded machine two or three fit in 10 s.
    await until(async () => (await runCliProcess(['dlq', 'list', '--json', '--kind', 'unknown-capability', '--config', configDir], env)).stdout.trim().split('\n').length === 2, 45_000);
    const missing = await runCliProcess(['dlq', 'requeue', 'no-such-record', '--config', configDir], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/EAGENTRPC_DLQ_RECORD_NOT_FOUND/);
    // Six or more CLI processes, each a Node start: on a loaded machine that outlasts the default 20 s.
  }, 90_000);

  it('daemon - $requeue refuses callers other than the agent operator tool', async () => {
    const stranger = new AgentNode({ id: 'stranger', transports: [natsTransport(nats.options)], peers: [{ id: 'echo-agent', routes: [{ kind: 'nats' }] }] });
    await stranger.start();
    try {
      const result = await stranger.requestAgent({ to: 'echo-agent', capability: '$requeue', payload: { id: 'x' } });
      expect(result.error?.code).toBe('EAGENTRPC_PERMISSION_DENIED');
    } finally {
      await stranger.close();
    }
  });

  it('daemon - /metrics shows the traffic: handler runs, auth decisions, DLQ records', async () => {
    await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', '1', '--config', configDir], env);
    const text = await (await fetch(`http://127.0.0.1:${served.daemon.httpPort}/metrics`)).text();
    expect(metric(text, 'agent_rpc_handler_duration_seconds_count', { capability: 'echo', result: 'ok', agent: 'echo-agent' })).toBeGreaterThan(0);
    expect(metric(text, 'agent_rpc_auth_decisions_total', { provider: 'internal', decision: 'accept' })).toBeGreaterThan(0);
    expect(metric(text, 'agent_rpc_dlq_records_total', { kind: 'unknown-capability', reason: 'no-handler' })).toBeGreaterThan(0);
    expect(metric(text, 'agent_rpc_handlers_in_flight', { capability: 'echo' })).toBe(0);
  });

  it('daemon - the example fleet on NATS: two agents in one serve process answer a CLI call with a nested call', async () => {
    const example = (name: string): string => copyScopedConfig(new URL(`../../examples/fleet-nats/${name}`, import.meta.url).pathname, { natsSubjectPrefix: nats.subjectPrefix });
    const port = await freePort();
    const fleetEnv = { NATS_URL: nats.url, HOSTNAME: 'it-1', HTTP_PORT: String(port), AGENT_DATA_DIR: join(configDir, 'fleet-data') };
    const fleet = await DaemonProcess.start([example('pr-reviewer'), example('linter')], fleetEnv, port);
    try {
      const payload = JSON.stringify({ prUrl: 'pull/7', files: ['a.ts', 'b.js'] });
      const run = await runCliProcess(['call', 'agent://pr-reviewer', 'review-pr', '--payload', payload, '--config', example('frontdesk')], fleetEnv);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', response: { verdict: 'request-changes', warnings: 1 } });
    } finally {
      fleet.signal('SIGTERM');
      expect(await fleet.exited).toBe(0);
    }
  }, 60_000);

  it('daemon - SIGTERM lets the in-flight handler answer, then exits 0', async () => {
    const caller = new AgentNode({ id: 'tester', transports: [natsTransport(nats.options)], peers: [{ id: 'echo-agent', routes: [{ kind: 'nats' }] }] });
    await caller.start();
    try {
      let signalled = false;
      // The handler's first progress response says it is running: stop the daemon then.
      const inFlight = caller.requestAgent({
        to: 'echo-agent',
        capability: 'slow',
        payload: { ms: 1500 },
        timeoutMs: 20_000,
        onProgress: () => {
          if (!signalled) served.daemon.signal('SIGTERM');
          signalled = true;
        },
      });
      expect(await inFlight).toMatchObject({ status: 'ok', response: { sleptMs: 1500 } });
      expect(signalled).toBe(true);
      expect(await served.daemon.exited).toBe(0);
    } finally {
      await caller.close();
    }
  });
});

/** The value of the series `name` whose labels include `labels`, from Prometheus text. */
function metric(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[3]);
  }
  return undefined;
}
