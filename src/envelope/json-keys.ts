/**
 * Object-key bookkeeping for the JSON scan: duplicate and forbidden keys, compared by
 * decoded value so that `"a"` and `"\u0061"` are the same key.
 *
 * Keys are kept as byte ranges into the input; a JS string is made only for keys with
 * escapes and for objects large enough to need a Set. Two unescaped keys are equal exactly
 * when their bytes are (the input is well-formed UTF-8, a bijection), so the common case
 * compares bytes and allocates nothing. Commoner still, an object's keys come in strictly
 * increasing byte order (canonical text sorts them): then each key is only compared with
 * the one before it, since a key above every earlier key equals none of them.
 *
 * State is module-level scratch reused across scans: the scan never calls out, so it
 * cannot re-enter.
 */

export type KeyFinding = 'duplicate-key' | 'forbidden-key' | undefined;

// Keys that turn into prototype pollution once a parsed value is merged or assigned.
const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const FORBIDDEN_BYTES = FORBIDDEN_KEYS.map((key) => new Uint8Array(Buffer.from(key, 'latin1')));

// Up to this many keys an object's duplicates are found by linear search; beyond it a Set
// keeps a hostile 100k-key object from turning the scan quadratic.
const LINEAR_KEY_LIMIT = 16;

const EMPTY = new Uint8Array(0);
let bytes: Uint8Array = EMPTY;
// Keys of the open objects, innermost last; `top` is the live length. Arrays are never
// shrunk while scanning (writing `length` is a runtime call).
let keyFrom = new Int32Array(64);
let keyTo = new Int32Array(64);
// Length and first/last byte packed: unequal tags rule out a pair without a byte loop.
let keyTag = new Int32Array(64);
// Decoded text of escaped keys only (undefined for plain ones).
const keyText: Array<string | undefined> = [];
let top = 0;
let high = 0;
const frameStart: number[] = [];
// 32-bit Bloom filter of the plain keys' tags per open object: a key whose bit is clear
// cannot equal any plain key before it, which skips the linear search almost always.
const frameBloom: number[] = [];
// Whether the open object holds any escaped key (those are compared as text).
const frameEscaped: boolean[] = [];
// Whether the open object's keys so far are plain and in strictly increasing byte order;
// while they are, the Bloom filter is not kept (it is built when the order breaks).
const frameSorted: boolean[] = [];
const frameSet: Array<Set<string> | undefined> = [];
let usedSets = false;

export function beginKeys(input: Uint8Array): void {
  bytes = input;
  top = 0;
}

/** Drops every reference to the input and its keys; keeps the arrays for the next scan. */
export function endKeys(): void {
  for (let j = 0; j < high; j++) keyText[j] = undefined;
  high = 0;
  top = 0;
  if (usedSets) {
    frameSet.length = 0;
    usedSets = false;
  }
  bytes = EMPTY;
}

export function openObject(depth: number): void {
  frameStart[depth] = top;
  frameSet[depth] = undefined;
  frameBloom[depth] = 0;
  frameEscaped[depth] = false;
  frameSorted[depth] = true;
}

export function closeObject(depth: number): void {
  top = frameStart[depth]!;
  frameSet[depth] = undefined;
}

function textOf(from: number, to: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
}

function tagOf(from: number, to: number): number {
  const length = to - from;
  return length === 0 ? 0 : ((length & 0xffff) << 16) | (bytes[from]! << 8) | bytes[to - 1]!;
}

function grow(): void {
  const size = keyFrom.length * 2;
  const from = new Int32Array(size);
  const to = new Int32Array(size);
  const tag = new Int32Array(size);
  from.set(keyFrom);
  to.set(keyTo);
  tag.set(keyTag);
  keyFrom = from;
  keyTo = to;
  keyTag = tag;
}

/** Whether the bytes `from`..`to` sort strictly after the bytes `otherFrom`..`otherTo`. */
function bytesAfter(from: number, to: number, otherFrom: number, otherTo: number): boolean {
  const common = Math.min(to - from, otherTo - otherFrom);
  for (let i = 0; i < common; i++) {
    const a = bytes[from + i]!;
    const b = bytes[otherFrom + i]!;
    if (a !== b) return a > b;
  }
  return to - from > otherTo - otherFrom;
}

function bloomBit(tag: number): number {
  return 1 << (Math.imul(tag, 0x9e3779b1) >>> 27);
}

function sameBytes(aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; aFrom + i < aTo; i++) if (bytes[aFrom + i] !== bytes[bFrom + i]) return false;
  return true;
}

function isForbidden(from: number, to: number, text: string | undefined): boolean {
  if (text !== undefined) return text === '__proto__' || text === 'constructor' || text === 'prototype';
  // Length and first byte rule out nearly every key before any loop runs.
  const length = to - from;
  const first = bytes[from];
  let candidate: Uint8Array;
  if (length === 9 && first === 0x5f) candidate = FORBIDDEN_BYTES[0]!;
  else if (length === 11 && first === 0x63) candidate = FORBIDDEN_BYTES[1]!;
  else if (length === 9 && first === 0x70) candidate = FORBIDDEN_BYTES[2]!;
  else return false;
  for (let i = 1; i < length; i++) if (bytes[from + i] !== candidate[i]) return false;
  return true;
}

function push(from: number, to: number, tag: number, text: string | undefined): void {
  if (top === keyFrom.length) grow();
  keyFrom[top] = from;
  keyTo[top] = to;
  keyTag[top] = tag;
  keyText[top] = text;
  top++;
  if (top > high) high = top;
}

/**
 * Registers the key whose content (between the quotes) is `from`..`to` in the object open
 * at `depth`. `escaped`: the content holds backslash escapes (already validated).
 */
export function addKey(depth: number, from: number, to: number, escaped: boolean): KeyFinding {
  const text = escaped ? (JSON.parse(textOf(from - 1, to + 1)) as string) : undefined;
  if (isForbidden(from, to, text)) return 'forbidden-key';
  const set = frameSet[depth];
  if (set !== undefined) {
    const key = text ?? textOf(from, to);
    if (set.has(key)) return 'duplicate-key';
    set.add(key);
    return undefined;
  }
  const start = frameStart[depth]!;
  const tag = text === undefined ? tagOf(from, to) : -1;
  if (frameSorted[depth] === true) {
    if (text === undefined && (top === start || bytesAfter(from, to, keyFrom[top - 1]!, keyTo[top - 1]!))) {
      push(from, to, tag, undefined);
      return undefined;
    }
    // The order breaks here: from now on every key is searched for, so the filter must
    // know the keys before it.
    frameSorted[depth] = false;
    let earlier = 0;
    for (let j = start; j < top; j++) earlier |= bloomBit(keyTag[j]!);
    frameBloom[depth] = earlier;
  }
  const bit = bloomBit(tag);
  const bloom = frameBloom[depth]!;
  if (text !== undefined) frameEscaped[depth] = true;
  else frameBloom[depth] = bloom | bit;
  const mustSearch = text !== undefined || frameEscaped[depth] === true || (bloom & bit) !== 0;
  for (let j = mustSearch ? start : top; j < top; j++) {
    const other = keyText[j];
    if (text === undefined && other === undefined) {
      if (keyTag[j] === tag && sameBytes(keyFrom[j]!, keyTo[j]!, from, to)) return 'duplicate-key';
    } else if ((text ?? textOf(from, to)) === (other ?? textOf(keyFrom[j]!, keyTo[j]!))) {
      return 'duplicate-key';
    }
  }
  push(from, to, tag, text);
  if (top - start > LINEAR_KEY_LIMIT) {
    const large = new Set<string>();
    for (let j = start; j < top; j++) large.add(keyText[j] ?? textOf(keyFrom[j]!, keyTo[j]!));
    frameSet[depth] = large;
    top = start;
    usedSets = true;
  }
  return undefined;
}
