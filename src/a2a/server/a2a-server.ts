import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { A2A_VERSION_HEADER, Extensions, formatSSEErrorEvent, formatSSEEvent, HTTP_EXTENSION_HEADER, SSE_HEADERS } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, validateVersion, type User } from '@a2a-js/sdk/server';
import type { DecodeLimits } from '../../envelope/index.js';
import type { Logger } from '../../logger.js';
import {
  ABORTED,
  badBodyText,
  INVALID,
  NOT_UTF8,
  readJsonBody,
  TOO_DEEP,
  TOO_LARGE,
  type ApiTokens,
  type FrontDoor,
} from '../../http-server/index.js';
import { roleCan, type Principal } from '../../auth/index.js';
import { AGENT_CARD_PATH } from '../index.js';
import { A2A_PATH_PREFIX, DEFAULT_A2A_TASKS_PER_USER } from './a2a-names.js';
import { agentEndpoint, type AgentEndpoint, type EndpointAgent } from './agent-endpoint.js';
import { TaskRuns } from './task-runs.js';

export interface A2aServerOptions {
  readonly tokens: ApiTokens;
  /** False while the node starts or drains: the JSON-RPC endpoint answers 503. */
  readonly ready: () => boolean;
  readonly logger: Logger;
  /** The version of agent-rpc named in the cards. */
  readonly version: string;
  /** Deadline of a task's request envelope. Default 5 minutes. */
  readonly timeoutMs?: number;
  /** Tasks kept per user and agent: at least this many of the newest, at most twice as many. Default 1,000. */
  readonly tasksPerUser?: number;
  /** Largest JSON-RPC body accepted. Default the agent's envelope limit (`limits.maxBytes`, 1 MiB unless configured). */
  readonly maxBodyBytes?: number;
}

/**
 * The A2A front door of a node: each agent's Agent Card (public) and its A2A JSON-RPC
 * endpoint `POST /a2a/<agentId>` (protocol 1.0, and 0.3's method names for a request that
 * asks for 0.3 or names no version), served with the A2A SDK on the node's HTTP port.
 * Agents attach as they are built; `listen` builds the cards once the port is known.
 */
export class A2aServer {
  readonly runs = new TaskRuns();
  private readonly agents: EndpointAgent[] = [];
  private readonly endpoints = new Map<string, AgentEndpoint>();
  /** Each agent's envelope limits (agent.yaml `limits`), which bound its JSON-RPC bodies. */
  private readonly bodyLimits = new Map<string, Required<DecodeLimits>>();
  private first: AgentEndpoint | undefined;
  private base: string | undefined;

  constructor(private readonly options: A2aServerOptions) {}

  attach(agent: EndpointAgent): void {
    this.agents.push(agent);
  }

  /** Builds every agent's card with its endpoint under `baseUrl` (the node's public address). */
  listen(baseUrl: string): void {
    this.base = baseUrl.replace(/\/+$/, '');
    for (const agent of this.agents) {
      const endpoint = agentEndpoint(agent, { url: `${this.base}${A2A_PATH_PREFIX}${encodeURIComponent(agent.id)}`, version: this.options.version, runs: this.runs, timeoutMs: agent.timeoutMs ?? this.options.timeoutMs ?? 5 * 60_000, tasksPerUser: agent.tasksPerUser ?? this.options.tasksPerUser ?? DEFAULT_A2A_TASKS_PER_USER });
      this.endpoints.set(agent.id, endpoint);
      this.bodyLimits.set(agent.id, agent.port.limits);
      this.first ??= endpoint;
    }
  }

  /** The URL of an agent's card (the first agent's at the well-known root). */
  cardUrl(agentId?: string): string | undefined {
    if (this.base === undefined) return undefined;
    if (agentId === undefined || agentId === this.first?.agentId) return `${this.base}${AGENT_CARD_PATH}`;
    return this.endpoints.has(agentId) ? `${this.base}${A2A_PATH_PREFIX}${encodeURIComponent(agentId)}${AGENT_CARD_PATH}` : undefined;
  }

  readonly frontDoor: FrontDoor = (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === AGENT_CARD_PATH) return this.serveCard(req, res, this.first);
    if (!path.startsWith(A2A_PATH_PREFIX)) return false;
    const rest = path.slice(A2A_PATH_PREFIX.length);
    const slash = rest.indexOf('/');
    const endpoint = this.endpoints.get(decoded(slash === -1 ? rest : rest.slice(0, slash)));
    if (slash !== -1 && rest.slice(slash) === AGENT_CARD_PATH) return this.serveCard(req, res, endpoint);
    if (slash !== -1 || !endpoint) return sendJson(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'POST' });
    return this.serveJsonRpc(req, res, endpoint, this.bodyLimits.get(endpoint.agentId)!);
  };

  private serveCard(req: IncomingMessage, res: ServerResponse, endpoint: AgentEndpoint | undefined): true {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET' });
    if (!endpoint) return sendJson(res, 404, { error: 'not found' });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' }).end(req.method === 'HEAD' ? undefined : endpoint.cardJson);
    return true;
  }

  private async serveJsonRpc(req: IncomingMessage, res: ServerResponse, endpoint: AgentEndpoint, limits: Required<DecodeLimits>): Promise<true> {
    const principal = this.options.tokens.authenticate(req.headers.authorization);
    if (!principal) return rpcRefusal(res, 401, 'unauthorized: a valid bearer token is required', { 'www-authenticate': 'Bearer' });
    if (!roleCan(principal.role, 'execute')) return rpcRefusal(res, 403, `forbidden: role ${principal.role} lacks execute permission`);
    if (!this.options.ready()) return rpcRefusal(res, 503, 'service unavailable: the node is starting or shutting down');
    // The body is bounded like the envelopes this agent accepts: its depth always, its size unless the server has its own.
    const body = await readJsonBody(req, this.options.maxBodyBytes ?? limits.maxBytes, limits.maxDepth);
    if (body === ABORTED) return true;
    if (body === TOO_LARGE) return rpcRefusal(res, 413, 'payload too large');
    if (body === NOT_UTF8 || body === TOO_DEEP) return rpcRefusal(res, 400, badBodyText(body, limits.maxDepth));
    if (body === INVALID || body === undefined) return sendJson(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body must be a JSON document' } });
    const requested = withoutPatch(header(req, A2A_VERSION_HEADER));
    // A request that names no version is a 0.3 client's (1.0 clients always send the header).
    const legacy = (requested ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
    const id = isRecord(body) && (typeof body['id'] === 'string' || typeof body['id'] === 'number') ? body['id'] : null;
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
    try {
      const context = defaultServerCallContextBuilder({
        extensions: Extensions.parseServiceParameter(header(req, HTTP_EXTENSION_HEADER)),
        user: userOf(principal),
        headers: req.headers,
        ...(requested !== undefined ? { requestedVersion: requested } : {}),
      });
      validateVersion(context.requestedVersion, endpoint.card, 'JSONRPC');
      // JSON-RPC 2.0 (and A2A 1.0 §9.5): a body that is no valid request object is -32600, not the SDK's -32602.
      if (!isJsonRpcRequest(body)) return sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: the body must be a JSON-RPC 2.0 request object (jsonrpc "2.0", a method name)' } });
      const answer = await (legacy ? endpoint.legacyJsonRpc : endpoint.jsonRpc).handle(body as Record<string, unknown>, context);
      if (!isAsyncIterable(answer)) return sendJson(res, 200, answer);
      await streamSse(req, res, answer, (error) => ({ jsonrpc: '2.0', id, error: mapError(error) }));
    } catch (error) {
      this.options.logger.debug({ err: error }, 'A2A request refused');
      if (!res.headersSent) sendJson(res, 200, { jsonrpc: '2.0', id, error: mapError(error) });
      else res.end();
    }
    return true;
  }
}

/** Server-sent events, one per JSON-RPC response, until the stream ends or the client leaves. */
async function streamSse(req: IncomingMessage, res: ServerResponse, stream: AsyncIterable<unknown>, errorOf: (error: unknown) => unknown): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  // The first event decides: an error before it is a plain JSON-RPC answer, not a stream.
  let first: IteratorResult<unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    sendJson(res, 200, errorOf(error));
    return;
  }
  res.writeHead(200, SSE_HEADERS);
  let gone = false;
  req.once('close', () => {
    gone = true;
    void iterator.return?.(undefined);
  });
  try {
    if (!first.done) res.write(formatSSEEvent(first.value));
    for (let next = await iterator.next(); !next.done && !gone; next = await iterator.next()) res.write(formatSSEEvent(next.value));
  } catch (error) {
    if (!gone) res.write(formatSSEErrorEvent(errorOf(error)));
  } finally {
    res.end();
  }
}

function rpcRefusal(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): true {
  // JSON-RPC-shaped, so an A2A client reads the reason; the status says it to anything else.
  return sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code: -32000, message } }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  return true;
}

function userOf(principal: Principal): User {
  return { isAuthenticated: true, userName: principal.user };
}

/** A path segment decoded; a malformed escape names no agent. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/** `major.minor` of a version: patch versions are not considered in negotiation (A2A 1.0 §3.6). */
function withoutPatch(version: string | undefined): string | undefined {
  const match = version === undefined ? null : /^\s*(\d+\.\d+)\.\d+\s*$/.exec(version);
  return match ? match[1] : version;
}

function isJsonRpcRequest(body: unknown): boolean {
  if (!isRecord(body) || body['jsonrpc'] !== '2.0' || typeof body['method'] !== 'string' || body['method'] === '') return false;
  const id = body['id'];
  return !('id' in body) || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
