import { randomUUID } from 'node:crypto';
import { RpcError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { RemoteNode } from '../../src/server/remote-nodes/remote-node.js';
import { formatRemoteOutput, summarizePrompt, type RejectedPrompt } from './format-remote-output.js';
import { errorText, NetworkError, requestJson, type JsonAnswer } from './http-json.js';
import { nextPollDelay, FIRST_POLL_DELAY_MS } from './poll-backoff.js';

const SESSIONS = '/api/v1/agent/sessions';
/** POSTs of one session (the first included) when the connection fails or the answer is lost. */
export const CREATE_ATTEMPTS = 4;
/** Consecutive failed polls tolerated; the next one fails the call. */
export const MAX_POLL_FAILURES = 3;

export interface RemoteSessionRequest {
  readonly message: string;
  /** An encoded request envelope for an agent of the remote node (the http transport). */
  readonly envelope?: string;
  /** Default true: prompts wait in the session, and this client rejects them. */
  readonly safeMode?: boolean;
}

export interface RemoteSessionOptions {
  /** Aborting cancels the remote session (best effort) and rejects with EAGENTRPC_ABANDONED. */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Waits between polls; injectable so tests need not wait. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

export interface RemoteSessionResult {
  readonly sessionId: string;
  readonly status: 'completed';
  /** The last assistant message with the rejected-prompt note, truncated (format-remote-output.ts). */
  readonly output: string;
  readonly lastAssistantMessage: string;
  readonly rejectedPrompts: readonly RejectedPrompt[];
  /** The remote agent's signed response envelope, when the session carried an envelope. */
  readonly responseEnvelope?: string;
}

interface SessionView {
  sessionState?: { working?: boolean; hasPendingPrompt?: boolean; status?: string };
  messages?: Array<{ role?: string; content?: string }>;
  pendingPrompt?: { promptId?: string; type?: string; question?: string };
  error?: { code?: string; message?: string };
  responseEnvelope?: string;
}

/**
 * Runs one session on a remote node to its end: create it (the id is chosen here, before
 * the first POST, so a retried POST never makes a second session), poll it with backoff,
 * reject its prompts, and return its answer. On the node's timeout or the caller's abort
 * the remote session is cancelled (best effort) and the error names it.
 */
export async function runRemoteSession(node: RemoteNode, request: RemoteSessionRequest, options: RemoteSessionOptions = {}): Promise<RemoteSessionResult> {
  const sessionId = randomUUID();
  const logger = (options.logger ?? silentLogger).child({ remoteNode: node.name, remoteSessionId: sessionId });
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const deadline = now() + node.timeoutMs;
  const { signal } = options;
  await createSession(node, sessionId, request, signal).catch(async (error: unknown) => {
    // Aborted while a POST may have reached the node: cancel whatever it created.
    throw signal?.aborted ? await cancelled(node, sessionId, logger, 'abandoned') : error;
  });

  const rejected: RejectedPrompt[] = [];
  let delay = FIRST_POLL_DELAY_MS;
  let failures = 0;
  let pollNow = false;
  for (;;) {
    if (!pollNow) {
      await sleep(Math.max(0, Math.min(delay, deadline - now())), signal).catch(() => undefined);
      delay = nextPollDelay(delay);
    }
    pollNow = false;
    if (signal?.aborted) throw await cancelled(node, sessionId, logger, 'abandoned');
    if (now() >= deadline) throw await cancelled(node, sessionId, logger, 'timeout');
    const answer = await requestJson(node, 'GET', `${SESSIONS}/${sessionId}`, undefined, signal).catch((error: unknown) => error as Error);
    if (answer instanceof Error || answer.status >= 500) {
      if (signal?.aborted) continue;
      failures += 1;
      const cause = answer instanceof Error ? answer.message : `HTTP ${answer.status}: ${errorText(answer)}`;
      logger.warn({ failures, cause }, 'polling the remote session failed');
      if (failures > MAX_POLL_FAILURES) {
        throw new RpcError('EAGENTRPC_REMOTE_POLL_FAILED', `failed to poll session ${sessionId} on ${node.name}: ${cause}`, { details: { sessionId, node: node.name } });
      }
      continue;
    }
    failures = 0;
    if (answer.status !== 200) throw apiError(answer, node, sessionId);
    const view = (answer.body ?? {}) as SessionView;
    const prompt = view.pendingPrompt;
    if (view.sessionState?.hasPendingPrompt && prompt?.promptId) {
      const summary = summarizePrompt(String(prompt.type ?? 'unknown'), String(prompt.question ?? ''));
      rejected.push(summary);
      logger.info({ promptType: summary.type, question: summary.question }, 'remote prompt auto-rejected');
      await requestJson(node, 'POST', `${SESSIONS}/${sessionId}/respond`, { promptId: prompt.promptId, cancelled: true }, signal).then(
        (reply) => (reply.status === 200 ? undefined : logger.warn({ status: reply.status, error: errorText(reply) }, 'could not reject the remote prompt')),
        (error: unknown) => logger.warn({ err: error }, 'could not reject the remote prompt'),
      );
      pollNow = true;
      continue;
    }
    if (view.sessionState?.working !== false) continue;
    return finished(view, node, sessionId, rejected);
  }
}

function finished(view: SessionView, node: RemoteNode, sessionId: string, rejected: RejectedPrompt[]): RemoteSessionResult {
  const status = view.sessionState?.status;
  if (status === 'failed' || status === 'cancelled') {
    const reason = status === 'cancelled' ? 'the remote session was cancelled' : (view.error?.message ?? 'the remote agent failed');
    throw new RpcError('EAGENTRPC_REMOTE_AGENT_FAILED', `${reason} (session ${sessionId} on ${node.name})`, {
      details: { sessionId, node: node.name, ...(view.error?.code ? { remoteCode: view.error.code } : {}), ...(view.responseEnvelope ? { responseEnvelope: view.responseEnvelope } : {}) },
    });
  }
  const lastAssistantMessage = [...(view.messages ?? [])].reverse().find((m) => m.role === 'assistant')?.content ?? '';
  return {
    sessionId,
    status: 'completed',
    output: formatRemoteOutput(lastAssistantMessage, rejected),
    lastAssistantMessage,
    rejectedPrompts: rejected,
    ...(typeof view.responseEnvelope === 'string' ? { responseEnvelope: view.responseEnvelope } : {}),
  };
}

async function createSession(node: RemoteNode, sessionId: string, request: RemoteSessionRequest, signal?: AbortSignal): Promise<void> {
  const body = { sessionId, message: request.message, safeMode: request.safeMode ?? true, ...(request.envelope !== undefined ? { envelope: request.envelope } : {}) };
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt++) {
    if (signal?.aborted) break;
    const answer = await requestJson(node, 'POST', SESSIONS, body, signal).catch((error: unknown) => error as Error);
    if (!(answer instanceof Error)) {
      if (answer.status === 201 || answer.status === 200) return;
      // A gateway that lost the upstream: the session may or may not exist; the same id makes retrying safe.
      if (answer.status !== 502 && answer.status !== 504) throw apiError(answer, node, sessionId);
      lastError = new Error(`HTTP ${answer.status}`);
    } else lastError = answer;
    if (attempt < CREATE_ATTEMPTS) await abortableSleep(100 * 2 ** (attempt - 1), signal).catch(() => undefined);
  }
  throw new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `remote node unreachable: ${lastError?.message ?? 'no answer'}`, { details: { node: node.name, sessionId } });
}

function apiError(answer: JsonAnswer, node: RemoteNode, sessionId: string): RpcError {
  return new RpcError('EAGENTRPC_REMOTE_API', `remote API error (HTTP ${answer.status}): ${errorText(answer)}`, { details: { status: answer.status, node: node.name, sessionId } });
}

async function cancelled(node: RemoteNode, sessionId: string, logger: Logger, why: 'timeout' | 'abandoned'): Promise<RpcError> {
  // Best effort, and not tied to the caller's (aborted) signal.
  await requestJson(node, 'POST', `${SESSIONS}/${sessionId}/cancel`).then(
    (reply) => (reply.status === 200 ? undefined : logger.warn({ status: reply.status }, 'could not cancel the remote session')),
    (error: unknown) => logger.warn({ err: error instanceof NetworkError ? error.message : error }, 'could not cancel the remote session'),
  );
  if (why === 'timeout') {
    return new RpcError('EAGENTRPC_REMOTE_TIMEOUT', `remote session ${sessionId} on ${node.name} did not finish within ${node.timeoutMs} ms; cancelled`, { details: { sessionId, node: node.name } });
  }
  return new RpcError('EAGENTRPC_ABANDONED', `the caller cancelled remote session ${sessionId} on ${node.name}`, { details: { sessionId, node: node.name, cancelled: true } });
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error for a node name nobody configured, listing the names there are. */
export function unknownNodeError(name: string, available: readonly string[]): RpcError {
  const known = available.length > 0 ? `available: ${available.join(', ')}` : 'no remote nodes are configured';
  return new RpcError('EAGENTRPC_REMOTE_NODE_UNKNOWN', `unknown remote node "${name}"; ${known}`, { details: { node: name, available: [...available] } });
}
