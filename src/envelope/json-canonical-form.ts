/**
 * Pieces of the JSON scan that tell whether the bytes are already RFC 8785 (JCS) text, so
 * a verifier can check a signature over them without canonicalizing again. Every check
 * is conservative: "not canonical" only costs the slow path, "canonical" must be exact.
 */

/**
 * Whether the number token `from`..`to` is written as JCS writes it (ECMAScript
 * Number-to-string). Short integers, nearly all numbers in envelopes, are decided from
 * their bytes; anything else by parsing and printing it.
 */
export function isCanonicalNumber(b: Uint8Array, from: number, to: number): boolean {
  const negative = b[from] === 0x2d;
  const digitsFrom = negative ? from + 1 : from;
  let plainInteger = to - digitsFrom <= 15;
  for (let i = digitsFrom; plainInteger && i < to; i++) plainInteger = b[i]! >= 0x30 && b[i]! <= 0x39;
  // Up to 15 digits an integer is exact in a double and prints back as written; "-0" prints as "0".
  if (plainInteger) return !(negative && b[digitsFrom] === 0x30);
  const text = Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1');
  return String(Number(text)) === text;
}

/**
 * Whether the key `from`..`to` sorts after the key `prevFrom`..`prevTo` the way JCS sorts
 * (UTF-16 code units). Unescaped UTF-8 bytes sort like code points, which is UTF-16 order
 * except where a 4-byte sequence meets U+E000..U+FFFF: at such a first difference the
 * answer is a conservative false.
 */
export function keyFollows(b: Uint8Array, prevFrom: number, prevTo: number, from: number, to: number): boolean {
  const common = Math.min(prevTo - prevFrom, to - from);
  for (let i = 0; i < common; i++) {
    const before = b[prevFrom + i]!;
    const after = b[from + i]!;
    if (before !== after) return before < after && after < 0xee;
  }
  return prevTo - prevFrom < to - from;
}
