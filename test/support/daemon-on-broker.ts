import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from './daemon-process.js';
import { copyEchoFixtureOn } from './echo-fixture.js';
import { runCliProcess, type CliRun } from './run-cli-process.js';
import { scopeConfig, type ConfigScope } from './scoped-config.js';

/**
 * `agent-rpc serve` of the echo fixture on one broker, as a user moving it there writes its
 * capabilities.yaml (`transport`: the YAML of its entry, `${env:…}` resolved from `env`),
 * without peers, logging at info so that connection changes show in its log.
 */
export async function startEchoDaemonOn(transport: string, kind: string, env: NodeJS.ProcessEnv): Promise<DaemonProcess> {
  const configDir = mkdtempSync(join(tmpdir(), `daemon-${kind}-`));
  copyEchoFixtureOn(configDir, transport, kind);
  rmSync(join(configDir, 'rpc-peers.yaml'));
  const agent = join(configDir, 'agent.yaml');
  writeFileSync(agent, readFileSync(agent, 'utf8').replace('log: { level: warn }', 'log: { level: info }'));
  return DaemonProcess.start(configDir, { ...env, AGENT_DATA_DIR: join(configDir, 'data') }, await freePort());
}

/** The daemon's exit code, or `running` if it has not exited within `ms` (it is then killed). */
export async function exitWithin(daemon: DaemonProcess, ms: number): Promise<number | null | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), ms)));
  const outcome = await Promise.race([daemon.exited, bound]);
  clearTimeout(timer);
  if (outcome === 'running') {
    daemon.signal('SIGKILL');
    await daemon.exited;
  }
  return outcome;
}

/** The echo fixture served by one test file: its config folder, the env its commands run with, the daemon. */
export interface ServedEchoFixture {
  readonly configDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly daemon: DaemonProcess;
}

/**
 * `agent-rpc serve` of the echo fixture (with its peers) on the run's broker, for the tests
 * of one file: started before them with capabilities.yaml's entry `transport` and routes of
 * `kind`, `${env:…}` read from `env`, the agent put on the file's `scope` of the broker;
 * stopped with SIGTERM after them. Read the fields inside tests, once started.
 */
export function serveEchoFixtureOn(setup: { readonly kind: string; readonly transport: string; readonly env: NodeJS.ProcessEnv; readonly scope?: ConfigScope }): ServedEchoFixture {
  const configDir = mkdtempSync(join(tmpdir(), `daemon-${setup.kind}-`));
  const env: NodeJS.ProcessEnv = { ...setup.env, AGENT_DATA_DIR: join(configDir, 'data'), AGENT_HTTP_PORT: '0' };
  let daemon: DaemonProcess | undefined;
  beforeAll(async () => {
    copyEchoFixtureOn(configDir, setup.transport, setup.kind);
    if (setup.scope) scopeConfig(configDir, setup.scope);
    daemon = await DaemonProcess.start(configDir, env, await freePort());
  }, 180_000);
  afterAll(async () => {
    daemon?.signal('SIGTERM');
    await daemon?.exited;
  }, 60_000);
  return {
    configDir,
    env,
    get daemon(): DaemonProcess {
      if (daemon === undefined) throw new Error('the daemon is not started yet');
      return daemon;
    },
  };
}

/**
 * What an operator does with a served echo fixture, from its config folder: a call over
 * `kind`, `rpc peers --verify`, a call to an unknown capability and `dlq list`, which then
 * holds that one refused request. Resolves with the first call's run, for checks of its own.
 */
export async function expectOperatorCommandsWork(served: ServedEchoFixture, kind: string): Promise<CliRun> {
  const { configDir, env } = served;
  const call = await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', JSON.stringify({ over: kind }), '--timeout', '30000', '--config', configDir], env);
  expect(JSON.parse(call.stdout)).toMatchObject({ status: 'ok', response: { over: kind } });
  const peers = await runCliProcess(['rpc', 'peers', '--verify', '--timeout', '30000', '--json', '--config', configDir], env);
  expect(JSON.parse(peers.stdout)).toMatchObject({ id: 'agent://echo-agent', transports: kind, verify: { ok: true } });
  const unknown = await runCliProcess(['call', 'agent://echo-agent', 'nope', '--timeout', '30000', '--config', configDir], env);
  expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
  const dlq = await runCliProcess(['dlq', 'list', '--json', '--config', configDir], env);
  expect(dlq.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['unknown-capability']);
  return call;
}
