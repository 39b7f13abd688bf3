import type { SecretValue } from './secret-value.js';

const MIN_KEY_BYTES = 32;
const KEY_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An HMAC key ring from a secret whose value is JSON: `{"keys": {"<keyId>": "<key>"}}`,
 * each key written `base64:<...>` or `hex:<...>`. Several keys may be active at once, so
 * a new key can reach every receiver before senders switch to it. Keys shorter than 32
 * bytes are refused: HMAC-SHA256 wants at least 256 bits. Errors name the reference and
 * the key id, never a key.
 */
export function parseKeyRing(secret: SecretValue, ref: string): ReadonlyMap<string, Buffer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret.reveal());
  } catch {
    throw new TypeError(`key ring ${ref} is not JSON of the form {"keys": {"<keyId>": "base64:..."}}`);
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys) || Object.keys(keys).length === 0) {
    throw new TypeError(`key ring ${ref} must have a non-empty "keys" object`);
  }
  const ring = new Map<string, Buffer>();
  for (const [keyId, encoded] of Object.entries(keys)) {
    if (!KEY_ID_RE.test(keyId)) throw new TypeError(`key ring ${ref}: key id ${JSON.stringify(keyId)} must be 1-128 characters of [A-Za-z0-9._:-]`);
    const key = decodeKey(encoded);
    if (key === undefined) throw new TypeError(`key ring ${ref}: key ${keyId} must be a string "base64:..." or "hex:..."`);
    if (key.length < MIN_KEY_BYTES) throw new TypeError(`key ring ${ref}: key ${keyId} is ${key.length} bytes, at least ${MIN_KEY_BYTES} are required`);
    ring.set(keyId, key);
  }
  return ring;
}

function decodeKey(encoded: unknown): Buffer | undefined {
  if (typeof encoded !== 'string') return undefined;
  if (encoded.startsWith('base64:')) {
    const text = encoded.slice('base64:'.length);
    return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  }
  if (encoded.startsWith('hex:')) {
    const text = encoded.slice('hex:'.length);
    return /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  }
  return undefined;
}
