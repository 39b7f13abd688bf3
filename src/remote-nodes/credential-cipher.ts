import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { RpcError } from '../errors.js';
import type { SecretValue } from '../secrets/index.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * AES-256-GCM for credentials at rest. Each value gets a fresh 12-byte IV; the record's
 * name is bound as additional authenticated data, so a ciphertext copied into another
 * record does not decrypt; the full 16-byte tag is required (a truncated tag would make
 * forgeries cheaper). Sealed form: `v1:<iv>:<tag>:<ciphertext>`, base64 each.
 */
export class CredentialCipher {
  readonly #key: Buffer;

  constructor(key: SecretValue, field = 'remoteNodeStore.keyRef') {
    const text = key.reveal().trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (bytes.length !== KEY_BYTES) throw new RangeError(`${field} must hold a 32-byte key, written as base64 or 64 hex digits`);
    this.#key = bytes;
  }

  seal(plaintext: string, recordName: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(recordName, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
  }

  /** Throws EAGENTRPC_CREDENTIAL_INVALID for anything that does not authenticate; never returns garbage. */
  open(sealed: string, recordName: string): string {
    const parts = sealed.split(':');
    const [version, ivText, tagText, ciphertextText] = parts;
    if (parts.length !== 4 || version !== VERSION) throw invalid(recordName, 'not a v1 sealed value');
    const iv = Buffer.from(ivText!, 'base64');
    const tag = Buffer.from(tagText!, 'base64');
    if (iv.length !== IV_BYTES) throw invalid(recordName, `IV is ${iv.length} bytes, not ${IV_BYTES}`);
    if (tag.length !== TAG_BYTES) throw invalid(recordName, `tag is ${tag.length} bytes, not ${TAG_BYTES}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(recordName, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertextText!, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw invalid(recordName, 'authentication failed (tampered, moved from another record, or another key)');
    }
  }
}

function invalid(recordName: string, why: string): RpcError {
  return new RpcError('EAGENTRPC_CREDENTIAL_INVALID', `stored credential of remote node ${recordName}: ${why}`, { details: { node: recordName } });
}
