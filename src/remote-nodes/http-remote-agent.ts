import { RpcError } from '../errors.js';
import { executeContextSchema } from './execute-request.js';
import { errorText, NetworkError, redactUrl, requestJson, type JsonAnswer } from './http-json.js';
import { pollDelay } from './poll-backoff.js';
import { mergeDelta, serializeContext, type ExecutionContext } from './remote-execution-context.js';
import type { RemoteNode } from './remote-node.js';
import { abortableSleep, MAX_POLL_FAILURES } from './remote-session-client.js';

export interface RemoteExecuteOptions {
  /** Aborting gives the call up (EAGENTRPC_ABANDONED). */
  readonly signal?: AbortSignal;
  /** Run as `POST /execute/async` and poll the status, for steps that outlast an HTTP exchange. */
  readonly async?: boolean;
  /** The capability to call; default the worker agent's `session.capability`. */
  readonly capability?: string;
}

const deltaSchema = executeContextSchema.pick({ messages: true, thoughts: true, usage: true });

/**
 * An agent of a remote worker, used like a local one: `execute(userId, context, input)`
 * sends the context (components by reference) and input to the worker's `/execute`,
 * appends the messages, thoughts and usage the worker added to `context` and returns the
 * result. The node's `timeout` bounds the whole call (EAGENTRPC_REMOTE_TIMEOUT).
 */
export class HttpRemoteAgent {
  constructor(
    readonly node: RemoteNode,
    readonly agentId: string,
  ) {}

  async execute(userId: string, context: ExecutionContext, input: unknown, options: RemoteExecuteOptions = {}): Promise<unknown> {
    // Throws before anything is sent when a component cannot leave this process.
    const body = { user_id: userId, agent_id: this.agentId, context: serializeContext(context), input, ...(options.capability ? { capability: options.capability } : {}) };
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), Math.min(this.node.timeoutMs, 2 ** 31 - 1));
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    try {
      const answer = options.async ? await this.runAsync(body, signal) : await requestJson(this.node, 'POST', '/execute', body, signal, this.node.timeoutMs + 1_000);
      return this.settle(answer, context);
    } catch (error) {
      if (timeout.signal.aborted) {
        throw new RpcError('EAGENTRPC_REMOTE_TIMEOUT', `${this.where()} did not finish executing ${this.agentId} within ${this.node.timeoutMs} ms`, {
          cause: error,
          details: { node: this.node.name, agentId: this.agentId, timeoutMs: this.node.timeoutMs },
        });
      }
      if (options.signal?.aborted) throw new RpcError('EAGENTRPC_ABANDONED', `the caller gave up executing ${this.agentId} on ${this.node.name}`, { cause: error });
      if (error instanceof NetworkError) {
        throw new RpcError('EAGENTRPC_REMOTE_UNREACHABLE', `${this.where()} is unreachable: ${error.reason}`, { cause: error, details: { node: this.node.name, reason: error.reason } });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `POST /execute/async`, then the status until it is no longer running, polled with back-off. */
  private async runAsync(body: unknown, signal: AbortSignal): Promise<JsonAnswer> {
    const created = await requestJson(this.node, 'POST', '/execute/async', body, signal);
    const handlerId = (created.body as { handler_id?: unknown } | undefined)?.handler_id;
    if (created.status !== 202 || typeof handlerId !== 'string') return created;
    let failures = 0;
    for (let poll = 1; ; poll++) {
      await abortableSleep(pollDelay(poll), signal);
      let answer: JsonAnswer;
      try {
        answer = await requestJson(this.node, 'GET', `/execute/status/${encodeURIComponent(handlerId)}`, undefined, signal);
      } catch (error) {
        if (signal.aborted || !(error instanceof NetworkError) || ++failures > MAX_POLL_FAILURES) throw error;
        continue;
      }
      if (answer.status !== 200) return answer;
      const problem = answer.unreadable ?? malformedStatus(answer.body);
      // A status the protocol does not have is a failed poll, never the end of the step.
      if (problem !== undefined) {
        if (++failures > MAX_POLL_FAILURES) throw this.apiError(answer, `malformed status reply: ${problem}`, true);
        continue;
      }
      failures = 0;
      if ((answer.body as { status: string }).status !== 'running') return answer;
    }
  }

  /** A sync answer or a finished status: merge the delta, then the result or a typed error. */
  private settle(answer: JsonAnswer, context: ExecutionContext): unknown {
    // A 200 is a success only when it is the protocol's reply: a proxy's page or a half-written
    // worker's answer must not pass for a step that finished with nothing.
    const problem = answer.status === 200 ? (answer.unreadable ?? malformedStatus(answer.body, 'completed')) : undefined;
    if (problem !== undefined) throw this.apiError(answer, `malformed reply: ${problem}`, true);
    const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as { result?: unknown; updated_context?: unknown; error?: unknown; status?: unknown };
    if (body.updated_context !== undefined) {
      const delta = deltaSchema.safeParse(body.updated_context);
      if (!delta.success) throw this.apiError(answer, 'the worker sent a malformed updated_context');
      mergeDelta(context, delta.data);
    }
    const failed = body.status === 'failed' || (answer.status >= 400 && typeof body.error === 'object' && body.error !== null);
    if (failed) {
      const error = (body.error ?? {}) as { code?: unknown; message?: unknown };
      const message = typeof error.message === 'string' ? error.message : 'the remote agent failed';
      throw new RpcError('EAGENTRPC_REMOTE_AGENT_FAILED', `${message} (${this.agentId} on ${this.node.name})`, {
        details: { node: this.node.name, agentId: this.agentId, status: answer.status, ...(typeof error.code === 'string' ? { remoteCode: error.code } : {}) },
      });
    }
    if (answer.status !== 200) throw this.apiError(answer);
    return body.result;
  }

  private apiError(answer: JsonAnswer, text = errorText(answer), malformed = false): RpcError {
    return new RpcError('EAGENTRPC_REMOTE_API', `remote API error (HTTP ${answer.status}): ${text}`, {
      details: { status: answer.status, node: this.node.name, agentId: this.agentId, ...(malformed ? { malformed } : {}) },
    });
  }

  private where(): string {
    return `remote node ${this.node.name} at ${redactUrl(this.node.apiBaseUrl)}`;
  }
}

/**
 * What is wrong with a 200 answer of `/execute` or of a status poll, or undefined when it is
 * one the protocol defines: `{status: "running"}`, a completed reply with `result` and an
 * `updated_context` object, or a failed one with an `error` object. A final reply (`implied`:
 * a sync `/execute` reply has no `status` and is read as completed) is never running.
 */
function malformedStatus(body: unknown, implied?: 'completed'): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return typeof body === 'string' || body === undefined ? 'the body is not JSON' : 'the body is not a JSON object';
  const reply = body as { status?: unknown; result?: unknown; updated_context?: unknown; error?: unknown };
  const status = reply.status ?? implied;
  const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (status === 'running') return implied ? 'a running status as the final reply' : undefined;
  if (status === 'failed') return isObject(reply.error) ? undefined : 'a failed status without an error object';
  if (status !== 'completed') return `unknown status ${JSON.stringify(status)}`;
  if (!('result' in reply)) return 'no result';
  if (!isObject(reply.updated_context)) return 'no updated_context object';
  return undefined;
}
