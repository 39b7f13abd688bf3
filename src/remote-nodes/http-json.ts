import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DEFAULT_MAX_DEPTH, scanJson } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import type { RemoteNode } from './remote-node.js';

/** Limits of one HTTP exchange with a remote node. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const RESPONSE_TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Deepest JSON nesting of an answer read, as of an envelope: anything deeper is never parsed. */
export const MAX_ANSWER_DEPTH = DEFAULT_MAX_DEPTH;

export interface JsonAnswer {
  readonly status: number;
  /** The parsed JSON; the text when it is not JSON; undefined when empty or nested too deep. */
  readonly body: unknown;
  /** Set when the body nested deeper than MAX_ANSWER_DEPTH and was left unparsed: what was wrong with it. */
  readonly unreadable?: string;
}

/**
 * The exchange never produced an HTTP answer: refused, reset, DNS, TLS, a timeout, or the
 * connection closed before the response was complete. `reason` is the short cause
 * (`ECONNREFUSED`, `no response within 30 s`, ...); the message adds the node and its
 * URL without userinfo, never a credential.
 */
/** No HTTP answer at all (refused, DNS, TLS, timeout): the node could not be reached. */
export class NetworkError extends RpcError {
  constructor(
    readonly reason: string,
    where: string,
    cause?: unknown,
  ) {
    super('EAGENTRPC_REMOTE_UNREACHABLE', `${reason} (${where})`, { cause, details: { reason } });
    this.name = 'NetworkError';
  }
}

/** A URL fit for messages and logs: userinfo, query and fragment removed (any may hold a credential). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/**
 * One JSON request to a remote node's API, over node:http(s) rather than fetch: Node's
 * bundled fetch (undici) cannot be given a connect timeout or `rejectUnauthorized: false`
 * without installing undici itself for its `Agent`, whereas node:http(s) gives a connect
 * timeout separate from the response timeout and `skip_tls_verify` per request, with no
 * dependency and no global agent setting.
 */
export function requestJson(node: RemoteNode, method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal, responseTimeoutMs = RESPONSE_TIMEOUT_MS): Promise<JsonAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(nodeUrl(node.apiBaseUrl, path));
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: Record<string, string | number> = { accept: 'application/json', ...authorization(node) };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const where = `${node.name} at ${redactUrl(node.apiBaseUrl)}`;
    let settled = false;
    const fail = (message: string, cause?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(responseTimer);
      req.destroy();
      reject(new NetworkError(message, where, cause));
    };
    const req = send(url, { method, headers, ...(url.protocol === 'https:' ? { rejectUnauthorized: !node.skipTlsVerify } : {}), signal });
    const responseTimer = setTimeout(() => fail(`no response within ${responseTimeoutMs / 1000} s`), responseTimeoutMs);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(() => fail(`could not connect within ${CONNECT_TIMEOUT_MS / 1000} s`), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    req.on('error', (error: NodeJS.ErrnoException) => fail(error.name === 'AbortError' ? 'aborted' : `${error.code ?? error.message}`, error));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) fail('response larger than 16 MiB');
        else chunks.push(chunk);
      });
      res.on('error', (error) => fail('response interrupted', error));
      res.on('aborted', () => fail('response interrupted'));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(responseTimer);
        const bytes = Buffer.concat(chunks);
        // Depth is bounded where the answer comes in, before it is parsed: nothing recursive
        // downstream (the envelope encoder, the canonical form) ever meets a deeper document.
        if (scanJson(bytes, MAX_ANSWER_DEPTH)?.reason === 'too-deep') {
          resolve({ status: res.statusCode ?? 0, body: undefined, unreadable: `the body nests deeper than ${MAX_ANSWER_DEPTH} levels` });
          return;
        }
        const text = bytes.toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text.length > 0 ? JSON.parse(text) : undefined;
        } catch {
          // Not JSON (a proxy's error page): keep the text for the error message.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.end(payload);
  });
}

/**
 * `path` (`/api/v1/...` or the root's `/execute`) on a node. The base URL may be written as
 * the node's root (`https://host:9464`) or, as RFC 027 writes it, as its API
 * (`https://host/api/v1`): a trailing `/api/v1` and trailing slashes are dropped, so neither
 * form doubles the prefix. Appended, not resolved: a path prefix (`https://host/agents`) stays.
 */
export function nodeUrl(apiBaseUrl: string, path: string): string {
  return `${apiBaseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}${path}`;
}

function authorization(node: RemoteNode): Record<string, string> {
  if (node.authType === 'none' || node.authToken === undefined) return {};
  if (node.authType === 'basic') return { authorization: `Basic ${Buffer.from(node.authToken.reveal(), 'utf8').toString('base64')}` };
  return { authorization: `Bearer ${node.authToken.reveal()}` };
}

/** The server's own words for an error answer: its `error` field, else the text, shortened. */
export function errorText(answer: JsonAnswer): string {
  if (answer.unreadable !== undefined) return answer.unreadable;
  const body = answer.body;
  const text = typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : typeof body === 'string' ? body : JSON.stringify(body ?? '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
