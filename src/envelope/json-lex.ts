/**
 * Lexical pieces of the JSON scan over UTF-8 bytes: whitespace, strings, numbers and
 * literals per RFC 8259. Each returns the index after what it read, or -1.
 */

/** Side outputs of scanString, read right after each call. */
export const lexState = {
  /** The last string scanned held a backslash escape. */
  sawEscape: false,
  /**
   * Some string of this scan holds an escape RFC 8785 writes otherwise: JCS escapes only
   * the quote, the backslash and control characters (\b \t \n \f \r by name, the rest as
   * lower-case \u00xx) and writes everything else as itself. Reset by the caller.
   */
  nonCanonicalEscape: false,
  /** Byte offset of the first unpaired surrogate escape seen in this scan, or -1. */
  loneSurrogateAt: -1,
};

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

// Control characters JCS (like JSON.stringify) writes by name: \b \t \n \f \r.
const SHORT_ESCAPE = new Uint8Array(0x20);
for (const unit of [0x08, 0x09, 0x0a, 0x0c, 0x0d]) SHORT_ESCAPE[unit] = 1;

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

export function skipWhitespace(b: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** `i` is at the opening quote. Returns the index after the closing quote, or -1. */
export function scanString(b: Uint8Array, i: number, n: number): number {
  lexState.sawEscape = false;
  i++;
  for (;;) {
    // Four bytes a step while all four are plain, then one at a time to the stop.
    while (i + 3 < n && (PLAIN[b[i]!]! & PLAIN[b[i + 1]!]! & PLAIN[b[i + 2]!]! & PLAIN[b[i + 3]!]!) === 1) i += 4;
    while (i < n && PLAIN[b[i]!] === 1) i++;
    if (i >= n) return -1;
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // control character
    lexState.sawEscape = true;
    const e = i + 1 < n ? b[i + 1]! : 0;
    if (e === 0x75) {
      const unit = hex4(b, i + 2);
      if (unit < 0) return -1;
      // Canonical: \u00xx for a control character without a name, its last digit lower case.
      const last = b[i + 5]!;
      if (unit >= 0x20 || SHORT_ESCAPE[unit] === 1 || (last >= 0x41 && last <= 0x46)) lexState.nonCanonicalEscape = true;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        // A high surrogate counts only when an escaped low surrogate follows at once.
        const low = i + 7 < n && b[i + 6] === 0x5c && b[i + 7] === 0x75 ? hex4(b, i + 8) : -1;
        if (low >= 0xdc00 && low <= 0xdfff) {
          i += 12;
          continue;
        }
        if (lexState.loneSurrogateAt < 0) lexState.loneSurrogateAt = i;
      } else if (unit >= 0xdc00 && unit <= 0xdfff && lexState.loneSurrogateAt < 0) {
        lexState.loneSurrogateAt = i;
      }
      i += 6;
    } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      if (e === 0x2f) lexState.nonCanonicalEscape = true;
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
export function scanNumber(b: Uint8Array, i: number, n: number): number {
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

export const TRUE = [0x74, 0x72, 0x75, 0x65];
export const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
export const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** Whether the bytes of `word` (TRUE, FALSE, NULL) start at `i`. */
export function literalAt(b: Uint8Array, i: number, n: number, word: readonly number[]): boolean {
  if (i + word.length > n) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}
