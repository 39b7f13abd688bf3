/**
 * JSON strings as RFC 8785 (and JSON.stringify) write them, straight into the JCS output as
 * UTF-8: the quote, the backslash and control characters escaped (\b \t \n \f \r by name,
 * the rest as lower-case \u00xx), everything else as itself. An unpaired surrogate throws:
 * the decoder rejects its escape, so writers do not produce it.
 */
import { jcsError, type JcsOutput } from './jcs-output.js';

// For ASCII: 0 when written as itself, else the letter after the backslash ('u' for \u00xx).
const ESCAPE = new Uint8Array(0x80);
ESCAPE.fill(0x75, 0, 0x20);
ESCAPE[0x08] = 0x62;
ESCAPE[0x09] = 0x74;
ESCAPE[0x0a] = 0x6e;
ESCAPE[0x0c] = 0x66;
ESCAPE[0x0d] = 0x72;
ESCAPE[0x22] = 0x22;
ESCAPE[0x5c] = 0x5c;

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

// Longer strings without anything to escape or pair are handed to the native UTF-8 writer
// after one regular-expression scan; shorter ones cost less in the loop than in the call.
const NATIVE_FROM = 64;
// eslint-disable-next-line no-control-regex -- control characters are what must be escaped
const NEEDS_CARE = /[\u0000-\u001f"\\\ud800-\udfff]/;

export function writeJsonString(out: JcsOutput, text: string): void {
  const length = text.length;
  // UTF-8 takes at most 3 bytes per UTF-16 unit; an escape more, reserved when met.
  out.ensure(length * 3 + 2);
  let buf = out.buf;
  let at = out.at;
  buf[at++] = 0x22;
  if (length >= NATIVE_FROM && !NEEDS_CARE.test(text)) {
    at += buf.write(text, at, 'utf8');
    buf[at++] = 0x22;
    out.at = at;
    return;
  }
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      const escape = ESCAPE[c]!;
      if (escape === 0) {
        buf[at++] = c;
        continue;
      }
      out.at = at;
      // May move the text to a new slab: both the buffer and the position change.
      out.ensure(6 + (length - i) * 3 + 1);
      buf = out.buf;
      at = out.at;
      buf[at++] = 0x5c;
      buf[at++] = escape;
      if (escape === 0x75) {
        buf[at++] = 0x30;
        buf[at++] = 0x30;
        buf[at++] = HEX_DIGITS[c >> 4]!;
        buf[at++] = HEX_DIGITS[c & 15]!;
      }
    } else if (c < 0x800) {
      buf[at++] = 0xc0 | (c >> 6);
      buf[at++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      buf[at++] = 0xe0 | (c >> 12);
      buf[at++] = 0x80 | ((c >> 6) & 0x3f);
      buf[at++] = 0x80 | (c & 0x3f);
    } else {
      const low = c <= 0xdbff && i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (low < 0xdc00 || low > 0xdfff) throw jcsError('a string contains an unpaired UTF-16 surrogate');
      const point = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
      buf[at++] = 0xf0 | (point >> 18);
      buf[at++] = 0x80 | ((point >> 12) & 0x3f);
      buf[at++] = 0x80 | ((point >> 6) & 0x3f);
      buf[at++] = 0x80 | (point & 0x3f);
      i++;
    }
  }
  buf[at++] = 0x22;
  out.at = at;
}
