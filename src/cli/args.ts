import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs<O extends Options> {
  readonly values: { readonly [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? string[] : string };
  readonly positionals: readonly string[];
}

/** node:util parseArgs, strict, with its errors turned into UsageError. */
export function parseCommandArgs<O extends Options>(args: readonly string[], options: O, allowPositionals = false): ParsedArgs<O> {
  try {
    const parsed = parseArgs({ args: [...args], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals });
    return parsed as unknown as ParsedArgs<O>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  }
}

const DURATION_RE = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
// Date alone (UTC midnight), or date and time with an optional zone (none: local time).
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** `--since`: an ISO date/time, or a duration back from `now` such as `30s`, `15m`, `2h`, `1d`. */
export function parseSince(value: string, now = Date.now()): Date {
  const duration = DURATION_RE.exec(value);
  if (duration) return new Date(now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  // new Date() alone would also take "1" or "March 7"; only ISO is meant.
  const date = ISO_RE.test(value) ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new UsageError(`--since must be an ISO date/time or a duration like 15m, 2h, 1d; got ${JSON.stringify(value)}`);
  }
  return date;
}

/** `--timeout <ms>`: a positive integer, else `fallback`. */
export function parseTimeout(value: string | undefined, fallback: number): number;
export function parseTimeout(value: string | undefined): number | undefined;
export function parseTimeout(value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const timeoutMs = Number(value);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new UsageError(`--timeout must be a positive integer (ms); got ${JSON.stringify(value)}`);
  return timeoutMs;
}

export function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer; got ${JSON.stringify(value)}`);
  return limit;
}
