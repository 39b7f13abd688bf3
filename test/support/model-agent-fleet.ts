import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { silentLogger } from '../../src/logger.js';
import { AgentNode, type AgentNodeOptions } from '../../src/rpc/agent-node.js';
import { buildAgent, type BuiltAgent } from '../../src/runtime/build-agent.js';
import type { ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { MemoryBus } from '../../transports/memory/memory-bus.js';
import { memoryTransport } from '../../transports/memory/index.js';

/** The secrets every agent of the fleet holds: none may ever reach a model. */
export const FLEET_SECRETS = { MODEL_KEY: 'sk-model-key-7f3a9c', GITHUB_TOKEN: 'ghp-token-55e1d0', DB_PASSWORD: 'db-pass-90b2c4' } as const;

export interface ModelAgentSpec {
  readonly id: string;
  /** agent.yaml lines after version, agent, log, dataDir and models (handlers, tools, guard, …). */
  readonly agentYaml: string;
  /** capabilities.yaml `capabilities:` items. */
  readonly capabilitiesYaml: string;
  /** Agent ids this one may call over the memory bus. */
  readonly peers?: readonly string[];
  /** `anthropic` speaks the Messages API to the scripted server; default openai-compatible. */
  readonly provider?: 'openai-compatible' | 'anthropic';
  /** rpc-peers.yaml `peers:` items written as given (instead of `peers`' memory routes). */
  readonly peersYaml?: string;
}

/**
 * Model agents loaded from agent.yaml files exactly as `agent-rpc serve` loads them, on one
 * in-process memory bus, their model a scripted model server on loopback; plus plain caller
 * nodes on the same bus.
 */
export class ModelAgentFleet {
  readonly root = mkdtempSync(join(tmpdir(), 'model-agents-'));
  readonly bus = new MemoryBus();
  readonly env: NodeJS.ProcessEnv;
  private readonly built: BuiltAgent[] = [];
  private readonly nodes: AgentNode[] = [];

  constructor(readonly model: ScriptedModelServer) {
    this.env = { ...process.env, ...FLEET_SECRETS, MODEL_URL: model.url };
  }

  dataDirOf(id: string): string {
    return join(this.root, id, 'data');
  }

  async agent(spec: ModelAgentSpec, options: { readonly logger?: typeof silentLogger } = {}): Promise<BuiltAgent> {
    const dir = join(this.root, spec.id);
    mkdirSync(dir, { recursive: true });
    const model =
      spec.provider === 'anthropic'
        ? `{ id: fast, provider: anthropic, model: scripted-claude, baseUrl: "\${env:MODEL_URL}", apiKeyRef: "\${env:MODEL_KEY}", default: true, pricing: { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 } }`
        : `{ id: fast, provider: openai-compatible, model: scripted-small, baseUrl: "\${env:MODEL_URL}/v1", apiKeyRef: "\${env:MODEL_KEY}", default: true, pricing: { inputPer1M: 2, outputPer1M: 10 } }`;
    writeFileSync(join(dir, 'agent.yaml'), `version: 1\nagent: { id: ${spec.id} }\nlog: { level: warn }\ndataDir: ./data\nmodels:\n  - ${model}\n${spec.agentYaml}`);
    writeFileSync(join(dir, 'capabilities.yaml'), `version: 1\ntransports:\n  memory: {}\ncapabilities:\n${spec.capabilitiesYaml}`);
    if (spec.peersYaml !== undefined) writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n${spec.peersYaml}`);
    else if (spec.peers) {
      writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n${spec.peers.map((peer) => `  - id: agent://${peer}\n    transports: [{ kind: memory }]\n`).join('')}`);
    }
    const config = await loadAgentConfig(dir, builtinPlugins, this.env);
    const built = await buildAgent(config, { logger: options.logger ?? silentLogger, env: this.env, shared: new Map([['memory', this.bus]]) });
    this.built.push(built);
    await built.node.start();
    return built;
  }

  /** A plain node that can call every agent of the fleet. */
  async caller(peers: readonly string[], options: Omit<AgentNodeOptions, 'id' | 'transports' | 'peers'> = {}): Promise<AgentNode> {
    const node = new AgentNode({ id: `caller-${this.nodes.length}`, transports: [memoryTransport({ bus: this.bus })], peers: peers.map((id) => ({ id, routes: [{ kind: 'memory' }] })), ...options });
    this.nodes.push(node);
    await node.start();
    return node;
  }

  /** Every request body the model server received, as text. */
  bodies(): string {
    return this.model.requests.map((request) => request.raw).join('\n');
  }

  async close(): Promise<void> {
    for (const node of this.nodes) await node.close();
    for (const built of this.built) await built.close();
  }
}
