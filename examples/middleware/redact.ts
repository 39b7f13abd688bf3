import type { Middleware } from '../../src/index.js';

const REDACTED = '[redacted]';

/** A copy of `value` with every member named in `fields` (at any depth) replaced by `[redacted]`. */
function redacted(value: unknown, fields: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => redacted(item, fields));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, fields.has(key) ? REDACTED : redacted(member, fields)]));
}

/**
 * Payloads leave this node without the named fields: in every call it makes (`call`), and
 * in every answer its handlers return (`handler`). The handler itself still sees its
 * input whole.
 */
export function redactFields(fields: readonly string[]): Middleware {
  const names = new Set(fields);
  return {
    name: 'redact-fields',
    call: (next) => (call) => {
      call.payload = redacted(call.payload, names);
      return next(call);
    },
    handler: (next) => async (input, ctx) => redacted(await next(input, ctx), names),
  };
}
