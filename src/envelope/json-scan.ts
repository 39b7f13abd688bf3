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
 *
 * On the way, when asked, it notes whether the text is already in RFC 8785 form (see
 * `scanForm`).
 */
import { addKey, beginKeys, closeObject, endKeys, openObject } from './json-keys.js';
import { isCanonicalNumber, keyFollows } from './json-canonical-form.js';
import { FALSE, NULL, TRUE, lexState, literalAt, scanNumber, scanString, skipWhitespace } from './json-lex.js';

export type ScanFailureReason = 'too-deep' | 'invalid-json' | 'duplicate-key' | 'forbidden-key' | 'lone-surrogate';

export interface ScanIssue {
  readonly reason: ScanFailureReason;
  /** Byte offset into the input where the problem was seen. */
  readonly offset: number;
}

const OBJECT = 1;
const ARRAY = 2;

// Container kind per open depth, reused across scans.
const kinds: number[] = [];
let deferred: ScanFailureReason | undefined;
let deferredAt = 0;

/** What the last successful scan learned about the text's form, read right after `scanJson`. */
export const scanForm = {
  /** Asked to check: the text is exactly the RFC 8785 (JCS) text of the value it holds. */
  canonical: false,
  /** Offset of the comma after the top-level object's first member, or -1. */
  firstMemberEnd: -1,
};
// The previous key of each open object, for the member order check (grown with depth).
let previousKeyFrom = new Int32Array(64);
let previousKeyTo = new Int32Array(64);

function noteObjectOpened(depth: number): void {
  if (depth >= previousKeyTo.length) {
    const from = new Int32Array(depth * 2);
    const to = new Int32Array(depth * 2);
    from.set(previousKeyFrom);
    to.set(previousKeyTo);
    previousKeyFrom = from;
    previousKeyTo = to;
  }
  previousKeyTo[depth] = -1;
}

/** skipWhitespace, noting that canonical text has none. */
function skipSpace(b: Uint8Array, i: number, n: number): number {
  // Every token starts above 0x20 and all whitespace is below: nearly always done at once.
  if (i >= n || b[i]! > 0x20) return i;
  const next = skipWhitespace(b, i, n);
  if (next !== i) scanForm.canonical = false;
  return next;
}

const DEFERRED_RANK: Readonly<Record<string, number>> = { 'duplicate-key': 0, 'forbidden-key': 1, 'lone-surrogate': 2 };

function defer(reason: ScanFailureReason | undefined, at: number): void {
  if (reason !== undefined && (deferred === undefined || DEFERRED_RANK[reason]! < DEFERRED_RANK[deferred]!)) {
    deferred = reason;
    deferredAt = at;
  }
}

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
  defer(addKey(depth, at + 1, end - 1, lexState.sawEscape), at);
  if (scanForm.canonical) {
    // Escaped keys are compared as bytes nowhere: left to the slow path.
    const previousTo = previousKeyTo[depth]!;
    if (lexState.sawEscape || (previousTo >= 0 && !keyFollows(b, previousKeyFrom[depth]!, previousTo, at + 1, end - 1))) scanForm.canonical = false;
    previousKeyFrom[depth] = at + 1;
    previousKeyTo[depth] = end - 1;
  }
  const colon = skipSpace(b, end, n);
  return colon < n && b[colon] === 0x3a ? colon + 1 : -1;
}

/**
 * Validates `bytes` (well-formed UTF-8) as one RFC 8259 JSON text nested at most
 * `maxDepth` containers deep (the top-level container is depth 1). Returns undefined when
 * `JSON.parse` may run on the decoded text.
 */
export function scanJson(bytes: Uint8Array, maxDepth: number, checkCanonical = false): ScanIssue | undefined {
  deferred = undefined;
  lexState.loneSurrogateAt = -1;
  lexState.nonCanonicalEscape = false;
  // Unasked, the form checks are skipped: `canonical` starts (and stays) false.
  scanForm.canonical = checkCanonical;
  scanForm.firstMemberEnd = -1;
  beginKeys(bytes);
  try {
    const failure = scan(bytes, maxDepth);
    if (failure !== undefined) return failure;
    if (lexState.loneSurrogateAt >= 0) defer('lone-surrogate', lexState.loneSurrogateAt);
    if (lexState.nonCanonicalEscape) scanForm.canonical = false;
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
    i = skipSpace(b, i, n);
    const c = i < n ? b[i]! : 0;
    if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { reason: 'too-deep', offset: i };
      i = skipSpace(b, i + 1, n);
      if (i < n && b[i] === (c === 0x7b ? 0x7d : 0x5d)) {
        depth--;
        i++;
      } else if (c === 0x7b) {
        kinds[depth] = OBJECT;
        openObject(depth);
        noteObjectOpened(depth);
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
      if (scanForm.canonical && !isCanonicalNumber(b, i, end)) scanForm.canonical = false;
      i = end;
    } else if (c === 0x74 && literalAt(b, i, n, TRUE)) i += 4;
    else if (c === 0x66 && literalAt(b, i, n, FALSE)) i += 5;
    else if (c === 0x6e && literalAt(b, i, n, NULL)) i += 4;
    else return syntaxError(b, maxDepth, i);

    // After a value: close containers or move on to the next member or element.
    for (;;) {
      i = skipSpace(b, i, n);
      if (depth === 0) return i === n ? undefined : syntaxError(b, maxDepth, i);
      const d = i < n ? b[i]! : 0;
      if (kinds[depth] === OBJECT) {
        if (d === 0x2c) {
          if (depth === 1 && scanForm.firstMemberEnd < 0) scanForm.firstMemberEnd = i;
          const at = skipSpace(b, i + 1, n);
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
