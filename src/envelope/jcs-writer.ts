/**
 * RFC 8785 (JCS) text written straight into bytes: members sorted by UTF-16 code units at
 * every depth, no whitespace, numbers as ECMAScript Number-to-string, strings escaped as
 * JSON.stringify escapes them, UTF-8 out.
 *
 * Why not JSON.stringify of a sorted copy: that allocates the copy, the text (on Node 20
 * twice over: its string builder grows in parts that are joined and flattened when the text
 * is turned into bytes), and then the bytes. This writer allocates nothing per value on the
 * common path: keys are sorted on a shared stack, integers are written digit by digit, and
 * the output goes into one buffer reused from call to call. The caller copies out what it
 * keeps.
 *
 * Values are read the way JSON.stringify reads them (toJSON, boxed primitives, undefined
 * members omitted, undefined and function array items as null). What JSON cannot carry
 * faithfully throws TypeError: NaN, ±Infinity, BigInt, cycles and unpaired surrogates.
 */
import { writeJsonString } from './jcs-strings.js';
import { JcsOutput, jcsError } from './jcs-output.js';

// Beyond this many members an object's keys are sorted by Array.prototype.sort (it allocates,
// but an insertion sort would turn quadratic).
const INSERTION_SORT_LIMIT = 32;

/** A value as JSON.stringify would see it: after toJSON, boxed primitives unwrapped. */
export function jsonView(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  let seen: unknown = value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') seen = (value as { toJSON(key: string): unknown }).toJSON(key);
  if (seen instanceof Number || seen instanceof String || seen instanceof Boolean) return seen.valueOf();
  return seen;
}

/** Whether JSON.stringify leaves this (already viewed) value out of an object. */
export function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

export class JcsWriter extends JcsOutput {
  // Own keys of the objects being written, innermost last; `keyTop` is the live length.
  private readonly keys: string[] = [];
  private keyTop = 0;
  // The objects and arrays being written, for the cycle check.
  private readonly ancestors: object[] = [];
  private depth = 0;

  /** Drops every reference to written values and keys; the buffer is kept for the next use. */
  override reset(): void {
    super.reset();
    for (let i = 0; i < this.keys.length && this.keys[i] !== undefined; i++) this.keys[i] = undefined as unknown as string;
    for (let i = 0; i < this.depth; i++) this.ancestors[i] = undefined as unknown as object;
    this.keyTop = 0;
    this.depth = 0;
  }

  /** Writes a value that is not omitted (see isOmitted) and already viewed (see jsonView). */
  writeViewed(value: unknown): void {
    switch (typeof value) {
      case 'string':
        writeJsonString(this, value);
        return;
      case 'number':
        this.writeNumber(value);
        return;
      case 'boolean':
        this.writeAscii(value ? 'true' : 'false');
        return;
      case 'bigint':
        throw jcsError('BigInt has no JSON representation');
      case 'object':
        if (value === null) this.writeAscii('null');
        else if (Array.isArray(value)) this.writeArray(value);
        else this.writeObject(value as Record<string, unknown>);
        return;
      default:
        throw jcsError(`a value of type ${typeof value} has no JSON representation`);
    }
  }

  writeNumber(value: number): void {
    if (!Number.isFinite(value)) throw jcsError(`${String(value)} has no JSON representation`);
    // Safe integers print as their digits (-0 as 0); the rest need Number-to-string.
    if (Number.isSafeInteger(value)) this.writeInteger(value);
    else this.writeAscii(String(value));
  }

  private enter(value: object): void {
    for (let i = 0; i < this.depth; i++) if (this.ancestors[i] === value) throw jcsError('cyclic structure');
    this.ancestors[this.depth++] = value;
  }

  private leave(): void {
    this.ancestors[--this.depth] = undefined as unknown as object;
  }

  private writeArray(array: readonly unknown[]): void {
    this.enter(array);
    this.writeByte(0x5b);
    for (let i = 0; i < array.length; i++) {
      if (i > 0) this.writeByte(0x2c);
      const item = jsonView(array[i], String(i));
      if (isOmitted(item)) this.writeAscii('null');
      else this.writeViewed(item);
    }
    this.writeByte(0x5d);
    this.leave();
  }

  private writeObject(record: Record<string, unknown>): void {
    this.enter(record);
    const from = this.keyTop;
    const to = this.collectSortedKeys(record, from);
    // Nested objects stack their keys above this object's.
    this.keyTop = to;
    this.writeByte(0x7b);
    let first = true;
    for (let i = from; i < to; i++) {
      const key = this.keys[i]!;
      const member = jsonView(record[key], key);
      if (isOmitted(member)) continue;
      if (!first) this.writeByte(0x2c);
      first = false;
      writeJsonString(this, key);
      this.writeByte(0x3a);
      this.writeViewed(member);
    }
    this.writeByte(0x7d);
    this.keyTop = from;
    this.leave();
  }

  /** Own enumerable string keys (what Object.keys gives) onto the stack at `from`, sorted; returns the end. */
  private collectSortedKeys(record: Record<string, unknown>, from: number): number {
    const keys = this.keys;
    let to = from;
    let sorted = true;
    // for…in reads V8's enum cache without allocating; inherited keys are filtered out.
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      if (to > from && !(keys[to - 1]! < key)) sorted = false;
      keys[to++] = key;
    }
    if (sorted) return to;
    if (to - from > INSERTION_SORT_LIMIT) {
      const ordered = keys.slice(from, to).sort();
      for (let i = 0; i < ordered.length; i++) keys[from + i] = ordered[i]!;
      return to;
    }
    // By UTF-16 code units, as JCS prescribes (JS string comparison).
    for (let i = from + 1; i < to; i++) {
      const key = keys[i]!;
      let j = i - 1;
      while (j >= from && keys[j]! > key) {
        keys[j + 1] = keys[j]!;
        j--;
      }
      keys[j + 1] = key;
    }
    return to;
  }
}
