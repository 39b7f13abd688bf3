/**
 * Where the JCS writer puts its bytes: a slab that texts are written into one after the
 * other. `take` hands out the text just written as a view of the slab (no copy), and the
 * next text starts after it; `reset` drops a text that is not taken, so its room is used
 * again. Like Node's Buffer pool, a slab is shared by the small Buffers cut from it, is
 * never written where a Buffer was handed out, and large texts get memory of their own.
 *
 * `buf` and `at` are public so the string writer can fill the slab without a call per
 * byte; `ensure` first.
 */
export function jcsError(message: string): TypeError {
  return new TypeError(`canonicalJson: ${message}`);
}

const SLAB_BYTES = 8 * 1024;
// A text longer than this is copied out of the slab (Node's pool does the same from half
// its size), so that no small Buffer keeps a large slab alive.
const MAX_SHARED_BYTES = SLAB_BYTES / 2;

export class JcsOutput {
  buf: Buffer = Buffer.allocUnsafeSlow(SLAB_BYTES);
  at = 0;
  /** Where the text being written starts in `buf`. */
  from = 0;

  /** Room for `bytes` more bytes: a new slab, with the text so far moved to its start, when this one is full. */
  ensure(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const written = this.at - this.from;
    const slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, (written + bytes) * 2));
    this.buf.copy(slab, 0, this.from, this.at);
    this.buf = slab;
    this.from = 0;
    this.at = written;
  }

  /** Forgets the text being written (nothing of it was handed out). */
  reset(): void {
    this.at = this.from;
  }

  /** The text written since the last take or reset, in a Buffer that keeps it; the next text goes after it. */
  take(): Buffer {
    const length = this.at - this.from;
    if (length > MAX_SHARED_BYTES) {
      const own = Buffer.allocUnsafe(length);
      this.buf.copy(own, 0, this.from, this.at);
      this.at = this.from;
      // A slab grown for a large text is not kept for the small ones after it.
      if (this.buf.length > SLAB_BYTES) {
        this.buf = Buffer.allocUnsafeSlow(SLAB_BYTES);
        this.from = this.at = 0;
      }
      return own;
    }
    const view = this.buf.subarray(this.from, this.at);
    // 8-byte aligned, as Node's pool aligns its slices.
    this.from = this.at = (this.at + 7) & ~7;
    return view;
  }

  /** The bytes `source[from..to)` appended. */
  writeFrom(source: Uint8Array, from: number, to: number): void {
    this.ensure(to - from);
    this.buf.set(source.subarray(from, to), this.at);
    this.at += to - from;
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

}
