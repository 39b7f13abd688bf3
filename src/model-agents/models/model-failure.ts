import { RpcError } from '../../errors.js';

/**
 * What a failed model request rejects with. Both official SDKs (generated from the same
 * template) export the same three error classes; the client passes its SDK's, so the
 * mapping is one and `instanceof` works without this file loading either package.
 */
type ErrorClass = abstract new (...args: never[]) => Error;
export interface ProviderErrorClasses {
  readonly APIError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
}

export interface ModelCallContext {
  readonly id: string;
  readonly provider: string;
  readonly timeoutMs: number;
  /** Cut out of every message: a provider may echo the key it refused. */
  readonly apiKey: string | undefined;
}

const MAX_PROVIDER_MESSAGE = 500;

/** Worth retrying later: the provider was busy, rate-limited, down, or timed out. 400/401/403/404/422 will fail again. */
export function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The abort reason when the caller's signal fired (so the caller can tell its own cancel
 * from a failure: it gets back exactly what it aborted with), else EAGENTRPC_MODEL_FAILED
 * with `{model, provider, status?}`. The request body is never quoted.
 */
export function modelFailure(thrown: unknown, context: ModelCallContext, classes: ProviderErrorClasses, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const subject = `model ${context.id} (provider ${context.provider})`;
  const details: Record<string, unknown> = { model: context.id, provider: context.provider };
  const fail = (message: string, retriable: boolean): RpcError =>
    new RpcError('EAGENTRPC_MODEL_FAILED', redact(message, context.apiKey), { retriable, details, cause: thrown });

  // Timeout is a subclass of connection error: test it first.
  if (thrown instanceof classes.APIConnectionTimeoutError) return fail(`${subject} did not answer within ${context.timeoutMs} ms`, true);
  if (thrown instanceof classes.APIConnectionError) return fail(`${subject} could not be reached: ${rootCause(thrown)}`, true);
  const status = (thrown as { status?: unknown } | null)?.status;
  if (thrown instanceof classes.APIError && typeof status === 'number') {
    details.status = status;
    return fail(`${subject} answered HTTP ${status}: ${providerMessage(thrown)}`, isRetriableStatus(status));
  }
  // The SDK refused before sending (bad option, missing credentials) or the answer was malformed: trying again changes nothing.
  return fail(`${subject} failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`, false);
}

/** The provider's own words: Anthropic's `apiMessage`, OpenAI's `error.message`, else the SDK's message. */
function providerMessage(error: Error): string {
  const { apiMessage, error: body } = error as { apiMessage?: unknown; error?: { message?: unknown } | null };
  const text = typeof apiMessage === 'string' ? apiMessage : typeof body?.message === 'string' ? body.message : error.message;
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text;
}

/** `fetch failed` says nothing; the innermost cause (ECONNREFUSED, a TLS error) does. */
function rootCause(error: Error): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause instanceof Error; depth++) current = current.cause;
  const last = current as Error & { code?: unknown };
  return typeof last.code === 'string' && !last.message.includes(last.code) ? `${last.code} ${last.message}` : last.message;
}

function redact(message: string, apiKey: string | undefined): string {
  return apiKey ? message.split(apiKey).join('[redacted]') : message;
}
