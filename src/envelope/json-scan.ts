/**
 * One iterative pass over untrusted JSON bytes, run before `JSON.parse` touches the text.
 *
 * `JSON.parse` accepts duplicate keys (the last silently wins, so two readers can disagree
 * about a signed message), materialises `__proto__` keys that later merges turn into
 * prototype pollution, keeps lone surrogate escapes that no UTF-8 consumer can represent,
 * and may recurse per nesting level. This scanner rejects all of that with an explicit
 * stack and no recursion, so depth is known to be within bounds before any recursive work
 * runs, and it validates RFC 8259 syntax on the way, so `JSON.parse` only ever sees text
 * it accepts.
 *
 * It reads the bytes rather than the decoded string: indexing a Uint8Array is about twice
 * as fast as charCodeAt. The caller must have checked that the bytes are UTF-8 already.
 *
 * Priority when several problems are present: too-deep, then invalid-json, then
 * duplicate-key, forbidden-key, lone-surrogate. The last three are remembered and the scan
 * goes on, so a later syntax error still wins over an earlier duplicate key.
 */
import { addKey, beginKeys, closeObject, endKeys, openObject } from './json-keys.js';

export type ScanFailureReason = 'too-deep' | 'invalid-json' | 'duplicate-key' | 'forbidden-key' | 'lone-surrogate';

export interface ScanIssue {
  readonly reason: ScanFailureReason;
  /** Byte offset into the input where the problem was seen. */
  readonly offset: number;
}

const OBJECT = 1;
const ARRAY = 2;

// 1 for bytes that may appear unescaped inside a string: everything but controls, the
// quote and the backslash. Bytes >= 0x80 belong to UTF-8 sequences already validated.
const PLAIN = new Uint8Array(256).fill(1);
PLAIN.fill(0, 0, 0x20);
PLAIN[0x22] = 0;
PLAIN[0x5c] = 0;

// Hex digit values, -1 elsewhere.
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[0x41 + i] = 10 + i;
  HEX[0x61 + i] = 10 + i;
}

// Container kind per open depth, reused across scans.
const kinds: number[] = [];
// Side outputs of scanString, read right after each call.
let sawEscape = false;
let loneSurrogateAt = -1;
let deferred: ScanFailureReason | undefined;
let deferredAt = 0;

const DEFERRED_RANK: Readonly<Record<string, number>> = { 'duplicate-key': 0, 'forbidden-key': 1, 'lone-surrogate': 2 };

function defer(reason: ScanFailureReason | undefined, at: number): void {
  if (reason !== undefined && (deferred === undefined || DEFERRED_RANK[reason]! < DEFERRED_RANK[deferred]!)) {
    deferred = reason;
    deferredAt = at;
  }
}

/** Four hex digits at `i` (past the end reads as invalid), or -1. */
function hex4(b: Uint8Array, i: number): number {
  if (i + 4 > b.length) return -1;
  const v0 = HEX[b[i]!]!;
  const v1 = HEX[b[i + 1]!]!;
  const v2 = HEX[b[i + 2]!]!;
  const v3 = HEX[b[i + 3]!]!;
  if ((v0 | v1 | v2 | v3) < 0) return -1;
  return (v0 << 12) | (v1 << 8) | (v2 << 4) | v3;
}

function skipWhitespace(b: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** `i` is at the opening quote. Returns the index after the closing quote, or -1. */
function scanString(b: Uint8Array, i: number, n: number): number {
  sawEscape = false;
  i++;
  for (;;) {
    while (i < n && PLAIN[b[i]!] === 1) i++;
    if (i >= n) return -1;
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // control character
    sawEscape = true;
    const e = i + 1 < n ? b[i + 1]! : 0;
    if (e === 0x75) {
      const unit = hex4(b, i + 2);
      if (unit < 0) return -1;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        // A high surrogate counts only when an escaped low surrogate follows at once.
        const low = i + 7 < n && b[i + 6] === 0x5c && b[i + 7] === 0x75 ? hex4(b, i + 8) : -1;
        if (low >= 0xdc00 && low <= 0xdfff) {
          i += 12;
          continue;
        }
        if (loneSurrogateAt < 0) loneSurrogateAt = i;
      } else if (unit >= 0xdc00 && unit <= 0xdfff && loneSurrogateAt < 0) {
        loneSurrogateAt = i;
      }
      i += 6;
    } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      i += 2;
    } else {
      return -1;
    }
  }
}

function skipDigits(b: Uint8Array, i: number, n: number): number {
  while (i < n && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  return i;
}

/** RFC 8259 number at `i`. Returns the index after it, or -1. */
function scanNumber(b: Uint8Array, i: number, n: number): number {
  if (b[i] === 0x2d) i++;
  if (i >= n) return -1;
  const first = b[i]!;
  if (first === 0x30) i++; // a leading zero stands alone
  else if (first >= 0x31 && first <= 0x39) i = skipDigits(b, i + 1, n);
  else return -1;
  if (i < n && b[i] === 0x2e) {
    const start = ++i;
    i = skipDigits(b, i, n);
    if (i === start) return -1;
  }
  if (i < n && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < n && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    const start = i;
    i = skipDigits(b, i, n);
    if (i === start) return -1;
  }
  return i;
}

function literalAt(b: Uint8Array, i: number, n: number, word: readonly number[]): boolean {
  if (i + word.length > n) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}
const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/**
 * After a syntax error the structure is unknown, but too-deep still outranks it: count
 * brackets outside strings, leniently, to decide which of the two to report.
 */
function nestsDeeperThan(b: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return false;
}

function syntaxError(b: Uint8Array, maxDepth: number, at: number): ScanIssue {
  return { reason: nestsDeeperThan(b, maxDepth) ? 'too-deep' : 'invalid-json', offset: at };
}

/** Reads `"key" :` at `at`; returns the index after the colon, or -1. */
function readKey(b: Uint8Array, at: number, n: number, depth: number): number {
  if (at >= n || b[at] !== 0x22) return -1;
  const end = scanString(b, at, n);
  if (end < 0) return -1;
  defer(addKey(depth, at + 1, end - 1, sawEscape), at);
  const colon = skipWhitespace(b, end, n);
  return colon < n && b[colon] === 0x3a ? colon + 1 : -1;
}

/**
 * Validates `bytes` (well-formed UTF-8) as one RFC 8259 JSON text nested at most
 * `maxDepth` containers deep (the top-level container is depth 1). Returns undefined when
 * `JSON.parse` may run on the decoded text.
 */
export function scanJson(bytes: Uint8Array, maxDepth: number): ScanIssue | undefined {
  deferred = undefined;
  loneSurrogateAt = -1;
  beginKeys(bytes);
  try {
    const failure = scan(bytes, maxDepth);
    if (failure !== undefined) return failure;
    if (loneSurrogateAt >= 0) defer('lone-surrogate', loneSurrogateAt);
    return deferred === undefined ? undefined : { reason: deferred, offset: deferredAt };
  } finally {
    endKeys();
  }
}

/** Syntax and depth; key and surrogate findings go to `defer`. */
function scan(b: Uint8Array, maxDepth: number): ScanIssue | undefined {
  const n = b.length;
  let i = 0;
  let depth = 0;
  for (;;) {
    // Expect a value at i.
    i = skipWhitespace(b, i, n);
    const c = i < n ? b[i]! : 0;
    if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { reason: 'too-deep', offset: i };
      i = skipWhitespace(b, i + 1, n);
      if (i < n && b[i] === (c === 0x7b ? 0x7d : 0x5d)) {
        depth--;
        i++;
      } else if (c === 0x7b) {
        kinds[depth] = OBJECT;
        openObject(depth);
        const next = readKey(b, i, n, depth);
        if (next < 0) return syntaxError(b, maxDepth, i);
        i = next;
        continue;
      } else {
        kinds[depth] = ARRAY;
        continue;
      }
    } else if (c === 0x22) {
      const end = scanString(b, i, n);
      if (end < 0) return syntaxError(b, maxDepth, i);
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const end = scanNumber(b, i, n);
      if (end < 0) return syntaxError(b, maxDepth, i);
      i = end;
    } else if (c === 0x74 && literalAt(b, i, n, TRUE)) i += 4;
    else if (c === 0x66 && literalAt(b, i, n, FALSE)) i += 5;
    else if (c === 0x6e && literalAt(b, i, n, NULL)) i += 4;
    else return syntaxError(b, maxDepth, i);

    // After a value: close containers or move on to the next member or element.
    for (;;) {
      i = skipWhitespace(b, i, n);
      if (depth === 0) return i === n ? undefined : syntaxError(b, maxDepth, i);
      const d = i < n ? b[i]! : 0;
      if (kinds[depth] === OBJECT) {
        if (d === 0x2c) {
          const at = skipWhitespace(b, i + 1, n);
          i = readKey(b, at, n, depth);
          if (i < 0) return syntaxError(b, maxDepth, at);
          break;
        }
        if (d !== 0x7d) return syntaxError(b, maxDepth, i);
        closeObject(depth);
      } else {
        if (d === 0x2c) {
          i++;
          break;
        }
        if (d !== 0x5d) return syntaxError(b, maxDepth, i);
      }
      depth--;
      i++;
    }
  }
}
