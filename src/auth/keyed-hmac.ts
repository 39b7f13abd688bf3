import { createHash, hash } from 'node:crypto';

const BLOCK_BYTES = 64; // SHA-256's block size
const DIGEST_BYTES = 32;

// Scratch for `padded key ‖ message`, shared: digests are synchronous, so no two can
// interleave. Grown for larger messages up to a point; beyond it a message gets its own.
let scratch = Buffer.allocUnsafe(16 * 1024);
const MAX_KEPT_SCRATCH = 256 * 1024;

/**
 * HMAC-SHA256 (RFC 2104) with the key padded once: each message costs two one-shot
 * `crypto.hash` calls over `ipad-key ‖ message` and `opad-key ‖ inner digest`, assembled in
 * a reused buffer. Same bytes as `createHmac('sha256', key)` at a fraction of its
 * per-message cost (on Node 24, `createHmac` costs ~12–20 µs a message, this ~2.5 µs).
 */
export class KeyedHmacSha256 {
  private readonly innerPad = Buffer.allocUnsafe(BLOCK_BYTES);
  /** `opad-key ‖ inner digest`, the outer hash's whole input; the digest part is rewritten per message. */
  private readonly outerInput = Buffer.allocUnsafe(BLOCK_BYTES + DIGEST_BYTES);

  constructor(key: Uint8Array) {
    // Keys longer than a block are hashed first; shorter ones are zero-padded.
    const block = Buffer.alloc(BLOCK_BYTES);
    (key.length > BLOCK_BYTES ? createHash('sha256').update(key).digest() : Buffer.from(key.buffer, key.byteOffset, key.byteLength)).copy(block);
    for (let i = 0; i < BLOCK_BYTES; i++) {
      this.innerPad[i] = block[i]! ^ 0x36;
      this.outerInput[i] = block[i]! ^ 0x5c;
    }
    block.fill(0);
  }

  /**
   * The HMAC of `head` followed by `tail` (without joining them first), as unpadded
   * base64url: a string output spares the Buffer a digest would allocate.
   */
  base64url(head: string, tail: string | Uint8Array): string {
    this.hashInner(head, tail);
    return hash('sha256', this.outerInput, 'base64url');
  }

  /** Writes the inner hash of `head ‖ tail` into `outerInput`. */
  private hashInner(head: string, tail: string | Uint8Array): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: a cheap bound instead of byteLength.
    const bound = BLOCK_BYTES + head.length * 3 + (typeof tail === 'string' ? tail.length * 3 : tail.byteLength);
    let input = scratch;
    if (bound > input.length) {
      input = Buffer.allocUnsafe(bound);
      if (bound <= MAX_KEPT_SCRATCH) scratch = input;
    }
    this.innerPad.copy(input, 0);
    let end = BLOCK_BYTES + input.write(head, BLOCK_BYTES, 'utf8');
    if (typeof tail === 'string') end += input.write(tail, end, 'utf8');
    else {
      input.set(tail, end);
      end += tail.byteLength;
    }
    // As 'binary' (latin1) text, one char per byte, written back as the same bytes.
    this.outerInput.write(hash('sha256', input.subarray(0, end), 'binary'), BLOCK_BYTES, 'binary');
  }
}
