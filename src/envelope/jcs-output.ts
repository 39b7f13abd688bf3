/**
 * A growable byte buffer for the JCS writer, reused from call to call. `buf` and `at` are
 * public so the string writer can fill it without a call per byte; `ensure` first.
 */
export function jcsError(message: string): TypeError {
  return new TypeError(`canonicalJson: ${message}`);
}

const INITIAL_BYTES = 16 * 1024;
// A buffer grown past this for one large message is not kept for the next ones.
const MAX_KEPT_BYTES = 1024 * 1024;

export class JcsOutput {
  buf: Buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  at = 0;

  /** Room for `bytes` more bytes. */
  ensure(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  reset(): void {
    this.at = 0;
    if (this.buf.length > MAX_KEPT_BYTES) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
  }

  writeByte(byte: number): void {
    if (this.at >= this.buf.length) this.ensure(1);
    this.buf[this.at++] = byte;
  }

  /** `text` from `from` on; it holds only ASCII (literals, numbers, field names). */
  writeAscii(text: string, from = 0): void {
    this.ensure(text.length - from);
    const buf = this.buf;
    let at = this.at;
    for (let i = from; i < text.length; i++) buf[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** A safe integer's decimal digits; -0 as 0, as Number-to-string writes it. */
  writeInteger(value: number): void {
    this.ensure(17);
    let n = value;
    if (n < 0) {
      this.buf[this.at++] = 0x2d;
      n = -n;
    }
    // Below 2^31 the digits come from integer arithmetic; above, from two such halves
    // (a double's % is a library call per digit).
    if (n < 0x80000000) {
      this.writeDigits(n, 0);
      return;
    }
    let high = Math.floor(n / 1e9);
    // n / 1e9 may round up to the next integer just below a multiple of 1e9.
    if (high * 1e9 > n) high--;
    this.writeDigits(high, 0);
    this.writeDigits(n - high * 1e9, 9);
  }

  /** `n` (0 ≤ n < 2^31) in decimal, left-padded with zeros to `width` digits. */
  private writeDigits(n: number, width: number): void {
    let digits = 1;
    for (let rest = n; rest >= 10; rest = (rest / 10) | 0) digits++;
    if (digits < width) digits = width;
    const buf = this.buf;
    let at = this.at + digits;
    this.at = at;
    for (let k = 0; k < digits; k++) {
      const next = (n / 10) | 0;
      buf[--at] = 0x30 + n - next * 10;
      n = next;
    }
  }

  /** A copy of the bytes written so far, followed by `tail[from..to)` when given, in a Buffer of its own. */
  copyOut(tail?: Uint8Array, from = 0, to = 0): Buffer {
    const out = Buffer.allocUnsafe(this.at + (to - from));
    this.buf.copy(out, 0, 0, this.at);
    if (tail !== undefined) out.set(tail.subarray(from, to), this.at);
    return out;
  }
}
