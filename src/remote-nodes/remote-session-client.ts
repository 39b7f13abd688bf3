import { randomUUID } from 'node:crypto';
import { RpcError } from '../errors.js';
import { systemClock, type Clock } from '../clock.js';
import { silentLogger, type Logger } from '../logger.js';
import type { RemoteNode } from './remote-node.js';
import { createRemoteSession, SESSIONS_PATH } from './create-remote-session.js';
import { formatRemoteOutput, summarizePrompt, type RejectedPrompt } from './format-remote-output.js';
import { errorText, requestJson, type JsonAnswer } from './http-json.js';
import { pollDelay } from './poll-backoff.js';
import { agentFailedError, apiError, pollFailedError, stoppedError, type StopReason } from './remote-session-errors.js';
import { lastAssistantMessage, readSessionView, type SessionView } from './session-view.js';
import { currentSessionFlow, type SessionFlow } from './session-flow.js';

export { unknownNodeError } from './remote-session-errors.js';
export { CREATE_ATTEMPTS } from './create-remote-session.js';

/** Consecutive failed polls tolerated; the next one (the 4th in a row) fails the call. */
export const MAX_POLL_FAILURES = 3;
/** Limit on the best-effort `POST …/cancel` sent when the session is given up. */
export const CANCEL_TIMEOUT_MS = 5_000;
// setTimeout's largest delay; a longer node timeout would otherwise fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RemoteSessionRequest {
  readonly message: string;
  /** An encoded request envelope for an agent of the remote node (the http gateway). */
  readonly envelope?: string;
  /** Default true: prompts wait in the session, and this client rejects them. */
  readonly safeMode?: boolean;
  /**
   * The calling handler's flow: the remote request continues it (its guard sees the chain).
   * Default: the flow of the handler the call is made in (the dispatch context), if any.
   */
  readonly flow?: SessionFlow;
}

export interface RemoteSessionOptions {
  /** Aborting cancels the remote session (best effort) and rejects with EAGENTRPC_ABANDONED. */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Waits between polls and between POST retries; injectable so tests need not wait. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Measures the node timeout between polls (a timer also bounds requests in flight). */
  readonly clock?: Clock;
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

/** Runs one remote session to its end: runRemoteSession, or a stand-in with the same contract. */
export type RemoteSessionRunner = (
  node: RemoteNode,
  request: RemoteSessionRequest,
  options: Pick<RemoteSessionOptions, 'signal' | 'logger'>,
) => Promise<Pick<RemoteSessionResult, 'sessionId' | 'output' | 'responseEnvelope'>>;

interface Run {
  readonly node: RemoteNode;
  readonly sessionId: string;
  readonly logger: Logger;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly clock: Clock;
  readonly deadline: number;
  /** Aborted by the caller's signal or by the node timeout; every request and wait listens. */
  readonly stop: AbortSignal;
  readonly stopReason: () => StopReason | undefined;
}

/**
 * Runs one session on a remote node to its end: create it (the id is chosen here, before
 * the first POST, so a retried POST never makes a second session), poll it with backoff,
 * reject its prompts, and return its answer. On the node's timeout or the caller's abort
 * the remote session is cancelled (best effort) and the error names it.
 */
export async function runRemoteSession(node: RemoteNode, request: RemoteSessionRequest, options: RemoteSessionOptions = {}): Promise<RemoteSessionResult> {
  checkArguments(node, request);
  const sessionId = randomUUID();
  const logger = (options.logger ?? silentLogger).child({ remoteNode: node.name, remoteSessionId: sessionId });
  const { signal } = options;
  // Nothing was sent yet, so there is nothing to cancel.
  if (signal?.aborted) throw stoppedError(node, sessionId, 'abandoned');
  const clock = options.clock ?? systemClock;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.min(node.timeoutMs, MAX_TIMER_MS));
  const onAbort = (): void => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = clock.now() + node.timeoutMs;
  const run: Run = {
    node,
    sessionId,
    logger,
    sleep: options.sleep ?? abortableSleep,
    clock,
    deadline,
    stop: stop.signal,
    stopReason: () => (signal?.aborted ? 'abandoned' : stop.signal.aborted || clock.now() >= deadline ? 'timeout' : undefined),
  };
  // A capability session's envelope carries its own flow; a message session carries the handler's.
  const flow = request.envelope === undefined ? (request.flow ?? currentSessionFlow()) : request.flow;
  try {
    const body = { sessionId, message: request.message, safeMode: request.safeMode ?? true, ...(request.envelope !== undefined ? { envelope: request.envelope } : {}), ...(flow ? { flow } : {}) };
    const created = await createRemoteSession(node, body, { signal: run.stop, sleep: run.sleep, logger }).catch(async (error: unknown) => {
      const why = run.stopReason();
      // Stopped while a POST may have reached the node: cancel whatever it created.
      throw why ? await giveUp(run, why) : error;
    });
    logger.debug({ status: created }, 'remote session created');
    return await pollUntilDone(run);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

async function pollUntilDone(run: Run): Promise<RemoteSessionResult> {
  const { node, sessionId, logger } = run;
  const rejected = new Map<string, RejectedPrompt>();
  let polls = 0;
  let failures = 0;
  let wait = true;
  for (;;) {
    if (wait) {
      const delay = pollDelay(++polls);
      // A sleep only fails when `stop` fires, which the loop reads right after.
      await run.sleep(Math.max(0, Math.min(delay, run.deadline - run.clock.now())), run.stop).catch(() => undefined);
    }
    wait = true;
    let why = run.stopReason();
    if (why) throw await giveUp(run, why);
    const answer = await requestJson(node, 'GET', `${SESSIONS_PATH}/${sessionId}`, undefined, run.stop).catch((error: unknown) => error as Error);
    const view = answer instanceof Error || answer.status !== 200 ? undefined : readSessionView(answer.body);
    // A finished session is the answer even when the time ran out while it was fetched.
    if (view && view.working === false && !view.hasPendingPrompt) return finished(run, view, [...rejected.values()]);
    why = run.stopReason();
    if (why) throw await giveUp(run, why);
    if (!view) {
      if (!(answer instanceof Error) && answer.status !== 200 && !isTransient(answer)) throw apiError(answer, node, sessionId);
      failures += 1;
      const cause = answer instanceof Error ? answer.message : answer.status === 200 ? 'the answer is not a session view' : `HTTP ${answer.status}: ${errorText(answer)}`;
      logger.warn({ failures, cause }, 'polling the remote session failed');
      if (failures > MAX_POLL_FAILURES) throw pollFailedError(node, sessionId, failures, cause);
      continue;
    }
    failures = 0;
    if (view.hasPendingPrompt && view.pendingPrompt) {
      // A new prompt rejected: poll again at once. A failed rejection, or a prompt seen
      // before: wait as usual, so neither a failing respond endpoint nor a node that keeps
      // showing an answered prompt is hammered.
      const seen = rejected.has(view.pendingPrompt.promptId);
      wait = !(await rejectPrompt(run, view.pendingPrompt, rejected)) || seen;
    }
  }
}

function isTransient(answer: JsonAnswer): boolean {
  return answer.status >= 500 || answer.status === 429;
}

/** Auto-rejects a prompt; keeps its type and the first 200 characters of its question (once per prompt). */
async function rejectPrompt(run: Run, prompt: NonNullable<SessionView['pendingPrompt']>, rejected: Map<string, RejectedPrompt>): Promise<boolean> {
  const { logger, node, sessionId } = run;
  if (!rejected.has(prompt.promptId)) rejected.set(prompt.promptId, summarizePrompt(prompt.type, prompt.question));
  // The question is never logged: only its type and id.
  logger.info({ promptId: prompt.promptId, promptType: prompt.type }, 'auto-rejecting a prompt of the remote session');
  const path = `${SESSIONS_PATH}/${sessionId}/respond`;
  const reply = await requestJson(node, 'POST', path, { promptId: prompt.promptId, cancelled: true }, run.stop).catch((error: unknown) => error as Error);
  if (!(reply instanceof Error) && reply.status >= 200 && reply.status < 300) return true;
  const cause = reply instanceof Error ? reply.message : `HTTP ${reply.status}: ${errorText(reply)}`;
  logger.warn({ promptId: prompt.promptId, cause }, 'could not reject the prompt of the remote session; polling goes on');
  return false;
}

function finished(run: Run, view: SessionView, rejectedPrompts: RejectedPrompt[]): RemoteSessionResult {
  const { node, sessionId, logger } = run;
  if (view.status === 'failed' || view.status === 'cancelled') {
    logger.info({ status: view.status, remoteCode: view.error?.code }, 'remote session ended without an answer');
    throw agentFailedError(node, sessionId, { status: view.status, ...(view.error ? { error: view.error } : {}), ...(view.responseEnvelope ? { responseEnvelope: view.responseEnvelope } : {}) });
  }
  const last = lastAssistantMessage(view);
  logger.debug({ outputLength: last.length, rejectedPrompts: rejectedPrompts.length }, 'remote session completed');
  return {
    sessionId,
    status: 'completed',
    output: formatRemoteOutput(last, rejectedPrompts),
    lastAssistantMessage: last,
    rejectedPrompts,
    ...(view.responseEnvelope !== undefined ? { responseEnvelope: view.responseEnvelope } : {}),
  };
}

/** Best-effort `POST …/cancel` (its failure is only logged), then the error for `why`. */
async function giveUp(run: Run, why: StopReason): Promise<Error> {
  const { node, sessionId, logger } = run;
  logger.info({ reason: why }, 'giving up the remote session; cancelling it');
  // Not tied to the stopped signal: the cancel must still go out, within its own limit.
  const reply = await requestJson(node, 'POST', `${SESSIONS_PATH}/${sessionId}/cancel`, undefined, AbortSignal.timeout(CANCEL_TIMEOUT_MS)).catch((error: unknown) => error as Error);
  if (reply instanceof Error) logger.warn({ cause: reply.message }, 'could not cancel the remote session');
  else if (reply.status < 200 || reply.status >= 300) logger.warn({ status: reply.status, cause: errorText(reply) }, 'could not cancel the remote session');
  return stoppedError(node, sessionId, why);
}

/** Caller mistakes fail fast, naming the field (never echoing a URL that may hold a credential). */
function checkArguments(node: RemoteNode, request: RemoteSessionRequest): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(node.apiBaseUrl).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`apiBaseUrl of remote node "${node.name}" must be an http(s) URL`);
  if (!Number.isFinite(node.timeoutMs) || node.timeoutMs <= 0) throw new RangeError(`timeoutMs of remote node "${node.name}" must be a positive number of milliseconds`);
  if (typeof request.message !== 'string') throw new TypeError('request.message must be a string');
  if (request.envelope !== undefined && typeof request.envelope !== 'string') throw new TypeError('request.envelope must be a string');
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RpcError('EAGENTRPC_ABANDONED', 'stopped'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RpcError('EAGENTRPC_ABANDONED', 'stopped'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
