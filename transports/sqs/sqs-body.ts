/**
 * SQS bodies are text (XML characters only). Envelopes are JSON, so they go as they are;
 * other bytes (not UTF-8, or with characters SQS refuses) go base64-encoded, flagged by a
 * message attribute.
 */
export const ENCODING_ATTRIBUTE = 'agentrpc-encoding';

// Characters SQS refuses: controls other than tab/LF/CR, U+FFFE/U+FFFF, lone surrogates.
// eslint-disable-next-line no-control-regex
const REFUSED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeBody(body: Uint8Array): { text: string; base64: boolean } {
  try {
    const text = decoder.decode(body);
    if (!REFUSED.test(text)) return { text, base64: false };
  } catch {
    // not UTF-8
  }
  return { text: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), base64: true };
}

export function decodeBody(text: string, base64: boolean): Uint8Array {
  return base64 ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}
