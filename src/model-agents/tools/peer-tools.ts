import type { CallResult } from '../../call-result.js';
import { outsideDispatch } from '../../rpc/flow-context.js';
import type { CapabilitySchema } from '../../rpc/index.js';
import type { AgentNode } from '../../rpc/agent-node.js';
import type { Logger } from '../../logger.js';
import type { Tool, ToolParameters, ToolResult } from '../tool.js';

/** A peer capability as `$capabilities` publishes it. */
export interface PublishedCapability extends CapabilitySchema {
  readonly description?: string;
}

/** Calls a peer capability in the running request's flow (the handler's `ctx.requestAgent`). */
export type PeerCall = (to: string, capability: string, payload: unknown) => Promise<CallResult>;

const CACHE_MS = 60_000;
/** How soon a peer that did not answer is asked again. */
const RETRY_MS = 10_000;
const LOOKUP_TIMEOUT_MS = 3_000;
const MAX_RESULT_CHARS = 30_000;

/**
 * What the peers in the peer table publish (`$capabilities`), asked once a minute at most
 * and outside any flow (a lookup is not a call the guard should count). A peer that does
 * not answer is left out until the next lookup, with a log line.
 */
export class PeerCatalog {
  private readonly known = new Map<string, { at: number; capabilities: readonly PublishedCapability[] }>();

  constructor(
    private readonly node: Pick<AgentNode, 'uri' | 'peers' | 'requestAgent' | 'mayCall'>,
    private readonly logger: Logger,
  ) {}

  /** Every capability of every peer that this agent's permissions let it call and `wanted` selects. */
  async callable(wanted: (uri: string, capability: string) => boolean): Promise<Array<{ uri: string; capability: PublishedCapability }>> {
    const peers = this.node.peers.entries().map((entry) => (entry.id.startsWith('agent://') ? entry.id : `agent://${entry.id}`));
    const found = await Promise.all(peers.filter((uri) => uri !== this.node.uri).map(async (uri) => ({ uri, capabilities: await this.capabilitiesOf(uri) })));
    return found.flatMap(({ uri, capabilities }) =>
      capabilities.filter((capability) => !capability.name.startsWith('$') && this.node.mayCall(uri, capability.name) && wanted(uri, capability.name)).map((capability) => ({ uri, capability })),
    );
  }

  private async capabilitiesOf(uri: string): Promise<readonly PublishedCapability[]> {
    const cached = this.known.get(uri);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.capabilities;
    const result = await outsideDispatch(() => this.node.requestAgent<{ capabilities?: PublishedCapability[] }>({ to: uri, capability: '$capabilities', payload: null, timeoutMs: LOOKUP_TIMEOUT_MS }));
    const capabilities = result.status === 'ok' && Array.isArray(result.response?.capabilities) ? result.response.capabilities : undefined;
    if (!capabilities) {
      this.logger.warn({ peer: uri, status: result.status, code: result.error?.code }, `peer ${uri} did not publish its capabilities; its tools are left out`);
      // Remembered for a while too, so a peer that is down does not delay every call by the lookup's timeout.
      this.known.set(uri, { at: Date.now() - CACHE_MS + RETRY_MS, capabilities: [] });
      return [];
    }
    this.known.set(uri, { at: Date.now(), capabilities });
    return capabilities;
  }
}

/** `<agent>__<capability>`, in the characters and length every provider accepts for a tool name. */
export function peerToolName(uri: string, capability: string): string {
  return `${uri.slice('agent://'.length)}__${capability}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/**
 * A peer capability as a tool: the peer's description and input schema for the model, the
 * call made through the request's own flow, so permissions, signing, deadlines, approvals,
 * usage and the runaway guard all apply as to any call. A schema that is not an object
 * (tool arguments always are) is wrapped as `{input: …}`.
 */
export function peerTool(uri: string, capability: PublishedCapability, call: PeerCall): Tool {
  const schema = capability.inputSchema;
  const wrapped = schema?.type !== 'object';
  const parameters = (wrapped ? { type: 'object', properties: { input: schema ?? {} }, required: ['input'], additionalProperties: false } : schema) as unknown as ToolParameters;
  return {
    name: peerToolName(uri, capability.name),
    description: `Calls ${capability.name} of ${uri}${capability.description ? `: ${capability.description}` : '.'}`,
    parameters,
    async execute(args): Promise<ToolResult> {
      const payload = wrapped ? (args as { input?: unknown } | null)?.input : args;
      const result = await call(uri, capability.name, payload ?? null);
      if (result.status !== 'ok') return { isError: true, output: `${uri}/${capability.name} failed (${result.error?.code ?? result.status}): ${result.error?.message ?? result.status}` };
      const text = typeof result.response === 'string' ? result.response : (JSON.stringify(result.response) ?? 'null');
      return { output: text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n… [${text.length - MAX_RESULT_CHARS} characters omitted]` : text };
    },
  };
}
