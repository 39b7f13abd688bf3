import type { Logger } from '../logger.js';
import type { RemoteNode } from './remote-node.js';
import { NetworkError, requestJson, type JsonAnswer } from './http-json.js';
import { apiError, unreachableError } from './remote-session-errors.js';
import { backoffDelay } from '../backoff.js';
import { CREATE_RETRY_BACKOFF } from './poll-backoff.js';
import type { SessionFlow } from './session-flow.js';

export const SESSIONS_PATH = '/api/v1/agent/sessions';
/**
 * POSTs of one session, the first included, while there is no answer (refused, reset,
 * response lost) or a 5xx one. Every attempt carries the same sessionId, so a POST the
 * node acted on but whose answer was lost comes back `already_exists`, never a second
 * session.
 */
export const CREATE_ATTEMPTS = 4;

export interface CreateSessionBody {
  readonly sessionId: string;
  readonly message: string;
  readonly safeMode: boolean;
  readonly envelope?: string;
  readonly flow?: SessionFlow;
}

export interface CreateContext {
  readonly signal: AbortSignal;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly logger: Logger;
}

/**
 * Creates the session (`accepted` or `already_exists`: both mean it exists). Fails with
 * EAGENTRPC_REMOTE_API for a 4xx answer at once, or for a 5xx answer that outlived every
 * attempt; with EAGENTRPC_REMOTE_UNREACHABLE when no attempt got an answer.
 */
export async function createRemoteSession(node: RemoteNode, body: CreateSessionBody, context: CreateContext): Promise<string> {
  let lastAnswer: JsonAnswer | undefined;
  let lastFailure: NetworkError | undefined;
  for (let attempt = 1; ; attempt++) {
    const answer = await requestJson(node, 'POST', SESSIONS_PATH, body, context.signal).catch((error: unknown) => {
      if (error instanceof NetworkError) return error;
      throw error;
    });
    if (answer instanceof NetworkError) {
      [lastAnswer, lastFailure] = [undefined, answer];
    } else if (answer.status === 200 || answer.status === 201) {
      const status = (answer.body as { status?: unknown } | undefined)?.status;
      return typeof status === 'string' ? status : 'accepted';
    } else if (answer.status < 500) {
      throw apiError(answer, node, body.sessionId);
    } else {
      [lastAnswer, lastFailure] = [answer, undefined];
    }
    if (attempt >= CREATE_ATTEMPTS || context.signal.aborted) break;
    context.logger.warn({ attempt, cause: lastFailure?.reason ?? `HTTP ${lastAnswer?.status}` }, 'creating the remote session failed; retrying with the same session id');
    // A sleep only fails when the signal aborts, which the next attempt's request sees.
    await context.sleep(backoffDelay(CREATE_RETRY_BACKOFF, attempt), context.signal).catch(() => undefined);
  }
  throw lastAnswer ? apiError(lastAnswer, node, body.sessionId) : unreachableError(node, body.sessionId, lastFailure);
}
