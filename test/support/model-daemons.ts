import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import type { ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { FLEET_SECRETS } from './model-agent-fleet.js';

export const API_TOKEN = 'operator-token-3b8e1f';

export interface ModelDaemonSpec {
  readonly id: string;
  /** agent.yaml lines after the common header (handlers, session, remoteNodes, …). */
  readonly agentYaml: string;
  readonly capabilitiesYaml: string;
  readonly peers?: readonly string[];
  /** Extra environment of the daemon (secrets its agent.yaml references). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * `agent-rpc serve` daemons, one model agent each, with the session API (one operator
 * token) on a free port and their model the scripted server; on NATS when `nats` is given
 * (each on the test's subject prefix), else on a private memory bus.
 */
export class ModelDaemons {
  readonly root = mkdtempSync(join(tmpdir(), 'model-daemons-'));
  private readonly daemons: RunningDaemon[] = [];

  constructor(
    readonly model: ScriptedModelServer,
    private readonly nats?: { readonly url: string; readonly subjectPrefix: string },
  ) {}

  async start(spec: ModelDaemonSpec): Promise<RunningDaemon> {
    const { dir, env } = this.writeConfig(spec);
    const daemon = await startDaemon(dir, builtinPlugins, { env, logger: silentLogger });
    this.daemons.push(daemon);
    return daemon;
  }

  /** Writes the daemon's config directory; returns it with the environment it needs (for a daemon in its own process). */
  writeConfig(spec: ModelDaemonSpec, httpPort = 0): { dir: string; env: NodeJS.ProcessEnv } {
    const dir = join(this.root, spec.id);
    mkdirSync(dir, { recursive: true });
    const transport = this.nats ? `nats: { servers: "${this.nats.url}", subjectPrefix: "${this.nats.subjectPrefix}" }` : 'memory: {}';
    const kind = this.nats ? 'nats' : 'memory';
    writeFileSync(
      join(dir, 'agent.yaml'),
      `version: 1
agent: { id: ${spec.id} }
log: { level: warn }
dataDir: ./data
http: { port: ${httpPort} }
api:
  tokens: [{ user: operator, role: operator, tokenRef: "\${env:API_TOKEN}" }]
models:
  - { id: fast, provider: openai-compatible, model: scripted-small, baseUrl: "\${env:MODEL_URL}/v1", apiKeyRef: "\${env:MODEL_KEY}", default: true, pricing: { inputPer1M: 2, outputPer1M: 10 } }
${spec.agentYaml}`,
    );
    writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  ${transport}\ncapabilities:\n${spec.capabilitiesYaml}`);
    if (spec.peers) writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n${spec.peers.map((peer) => `  - id: agent://${peer}\n    transports: [{ kind: ${kind} }]\n`).join('')}`);
    return { dir, env: { ...process.env, ...FLEET_SECRETS, MODEL_URL: this.model.url, API_TOKEN, ...spec.env } };
  }

  dataDirOf(id: string): string {
    return join(this.root, id, 'data');
  }

  async stop(): Promise<void> {
    for (const daemon of this.daemons) await daemon.stop();
  }
}
