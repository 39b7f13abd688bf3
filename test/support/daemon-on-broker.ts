import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from './daemon-process.js';
import { copyEchoFixtureOn } from './echo-fixture.js';

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
