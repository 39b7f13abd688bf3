import type { AgentRpcEnvelope } from '../../envelope/index.js';
import { RpcError, toRpcError } from '../../errors.js';
import type { Gateway, GatewayCall, GatewayPort } from '../../gateway.js';
import { silentLogger, type Logger } from '../../logger.js';
import { runRemoteSession, unknownNodeError, type RemoteNode, type RemoteNodeResolver, type RemoteSessionRunner } from '../index.js';

export interface HttpGatewayOptions {
  /** Remote nodes by name: a peer route `kind: http` names its node. */
  readonly resolver?: RemoteNodeResolver;
  /** Default: runRemoteSession (src/remote-nodes/remote-session-client.ts). */
  readonly runner?: RemoteSessionRunner;
  readonly logger?: Logger;
}

// A request's remote session is bounded by the request's own deadline; a little grace lets
// the remote answer that arrives just in time still reach the caller.
const DEADLINE_GRACE_MS = 1_000;

/**
 * `http`: agents on other nodes, reached through their session API. A call to a peer routed
 * `{kind: http, node}` creates a session on that node carrying the signed envelope, polls
 * it, and hands the remote agent's signed response back to the node, which verifies and
 * settles it like a reply from a broker. What cannot be carried to the end is reported as
 * failed. Outbound only: requests from other nodes arrive through the session API and the
 * node's inbound port.
 */
class HttpGateway implements Gateway {
  readonly kind = 'http' as const;
  private readonly running = new Map<string, AbortController>();
  private port: GatewayPort | undefined;
  private closed = false;
  private readonly logger: Logger;

  constructor(private readonly options: HttpGatewayOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  // No connection to open: every call is its own HTTP session.
  async open(port: GatewayPort): Promise<void> {
    this.port = port;
  }

  async send(call: GatewayCall): Promise<void> {
    if (this.closed || !this.port) throw new RpcError('EAGENTRPC_TRANSPORT_CLOSED', `http gateway is ${this.closed ? 'closed' : 'not open'}`);
    const node = await this.nodeFor(call.address);
    this.startSession(this.port, node, call);
  }

  abandon(requestId: string): void {
    this.running.get(requestId)?.abort();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort();
  }

  private async nodeFor(name: string): Promise<RemoteNode> {
    const resolver = this.options.resolver;
    const node = await resolver?.get(name);
    if (node) return node;
    throw unknownNodeError(name, ((await resolver?.list()) ?? []).map((n) => n.name));
  }

  private startSession(port: GatewayPort, node: RemoteNode, call: GatewayCall): void {
    const { envelope } = call;
    const controller = new AbortController();
    this.running.set(envelope.messageId, controller);
    const timer = envelope.deadline === undefined ? undefined : setTimeout(() => controller.abort(), Math.max(0, envelope.deadline - Date.now() + DEADLINE_GRACE_MS));
    timer?.unref();
    void this.runSession(node, call, controller.signal)
      .then(
        (response) => port.deliverSigned(envelope, Buffer.from(response, 'utf8')),
        (error: unknown) => port.failed(call, toRpcError(error)),
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.running.get(envelope.messageId) === controller) this.running.delete(envelope.messageId);
      });
  }

  private async runSession(node: RemoteNode, call: GatewayCall, signal: AbortSignal): Promise<string> {
    const runner = this.options.runner ?? runRemoteSession;
    const text = Buffer.from(call.body).toString('utf8');
    const result = await runner(node, { message: summarize(call.envelope), envelope: text, safeMode: true }, { signal, logger: this.logger }).catch((error: unknown) => {
      // A remote handler's error comes back as a signed response envelope: it reaches the
      // caller as the typed error it is, like over a broker.
      const answered = (error as RpcError).details?.responseEnvelope;
      if (typeof answered === 'string') return { sessionId: '', output: '', responseEnvelope: answered };
      throw error;
    });
    if (result.responseEnvelope === undefined) {
      throw new RpcError('EAGENTRPC_INVALID_RESPONSE', `remote node ${node.name} finished session ${result.sessionId} without a response envelope`, { details: { sessionId: result.sessionId } });
    }
    return result.responseEnvelope;
  }
}

/** What the remote session shows as the user's message: the capability and a bounded view of the payload. */
function summarize(envelope: AgentRpcEnvelope): string {
  const payload = JSON.stringify(envelope.payload ?? null);
  return `${envelope.capability} ${payload.length > 2_000 ? `${payload.slice(0, 2_000)}…` : payload}`;
}

export function httpGateway(options: HttpGatewayOptions = {}): Gateway {
  return new HttpGateway(options);
}
