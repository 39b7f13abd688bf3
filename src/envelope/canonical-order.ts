/**
 * Values put in RFC 8785 member order, so that one native `JSON.stringify` writes their
 * canonical text (see canonical.ts).
 */

// Marks a value `ordered` cannot hand to JSON.stringify; the general writer then builds the text.
export const UNORDERABLE = Symbol('unorderable');
const MAX_ORDERED_DEPTH = 64;

/**
 * `value` in a form whose `JSON.stringify` is its JCS text: the two agree on strings,
 * numbers and literals and differ only in member order, so `value` itself when every
 * object's members already come in ascending UTF-16 order (values decoded from canonical
 * bytes, the common case), else a copy with members in order. UNORDERABLE when a copy
 * cannot fix it or JSON.stringify would write something else: integer-like keys (V8
 * visits them first whatever the insertion order), `__proto__`, toJSON, boxed
 * primitives, non-finite numbers, BigInt, or nesting deep enough to be a cycle.
 */
export function ordered(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? value : UNORDERABLE;
    case 'bigint':
      return UNORDERABLE;
    case 'object':
      if (value === null) return null;
      if (depth > MAX_ORDERED_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return UNORDERABLE;
      if (Array.isArray(value)) return orderedArray(value, depth);
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return UNORDERABLE;
      return orderedRecord(value as Record<string, unknown>, depth);
    default:
      return value;
  }
}

function orderedArray(array: unknown[], depth: number): unknown {
  let copy: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    const item = ordered(array[i], depth + 1);
    if (item === UNORDERABLE) return UNORDERABLE;
    if (item !== array[i] && copy === undefined) copy = array.slice();
    if (copy !== undefined) copy[i] = item;
  }
  return copy ?? array;
}

function orderedRecord(record: Record<string, unknown>, depth: number): unknown {
  // for…in visits own members in the order JSON.stringify does (and inherited enumerable
  // ones after them, which only makes the check stricter).
  let previous: string | undefined;
  let inOrder = true;
  for (const key in record) {
    // Assigning it to a copy would set the copy's prototype instead.
    if (key === '__proto__') return UNORDERABLE;
    if (previous !== undefined && !(previous < key)) {
      inOrder = false;
      break;
    }
    previous = key;
  }
  const keys = inOrder ? undefined : sortedKeys(record);
  let copy: Record<string, unknown> | undefined;
  if (keys !== undefined) {
    copy = {};
    for (const key of keys) if (isArrayIndex(key)) return UNORDERABLE;
  }
  for (const key of keys ?? Object.keys(record)) {
    const member = record[key];
    const item = ordered(member, depth + 1);
    if (item === UNORDERABLE) return UNORDERABLE;
    if (copy === undefined && item !== member) {
      copy = {};
      for (const earlier in record) {
        if (earlier === key) break;
        copy[earlier] = record[earlier];
      }
    }
    if (copy !== undefined) copy[key] = item;
  }
  return copy ?? record;
}

/**
 * Own keys by UTF-16 code units, as JCS sorts them. Members of one object are few, and
 * Array.prototype.sort allocates far more than an insertion sort in place needs.
 */
export function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Keys V8 treats as array indices: canonical decimal integers below 2^32 - 1. */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (key.length === 0 || key.length > 10 || first < 0x30 || first > 0x39 || (first === 0x30 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return Number(key) < 4294967295;
}
