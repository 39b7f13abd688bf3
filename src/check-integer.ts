/**
 * Caller mistakes fail fast (RangeError naming the field, never retried): the one check
 * for options that count things or measure milliseconds.
 */
export function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a positive integer, got ${String(value)}`);
  return value;
}

/** As positiveInteger, 0 allowed (a limit of nothing, a delay of none). */
export function nonNegativeInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RangeError(`${field} must be a non-negative integer, got ${String(value)}`);
  return value;
}
