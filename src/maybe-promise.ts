/**
 * Hot-path helper: pluggable steps (auth providers, dedupe stores) may answer directly or
 * with a promise. Awaiting a plain value still costs a microtask and a promise, so callers
 * await only what is actually a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

