import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyedHmacSha256 } from '../../src/auth/keyed-hmac.js';

describe('keyed hmac', () => {
  it('hmac - the padded key gives the bytes createHmac gives, for keys shorter, equal to and longer than a block', () => {
    for (const keyLength of [1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const hmac = new KeyedHmacSha256(key);
      for (const message of ['', 'a', '{"kind":"request"}', 'é€😀'.repeat(50), randomBytes(1000), 'é€😀'.repeat(20_000), randomBytes(100_000)]) {
        const text = typeof message === 'string' ? message : message.toString('latin1');
        expect(hmac.base64url('', message), `key ${keyLength} B`).toBe(createHmac('sha256', key).update(message).digest('base64url'));
        // Digesting one message leaves it ready for the next.
        expect(hmac.base64url('', text)).toBe(createHmac('sha256', key).update(text).digest('base64url'));
      }
    }
  });

  it('hmac - a message given in two parts is the HMAC of the parts joined', () => {
    const key = randomBytes(32);
    const hmac = new KeyedHmacSha256(key);
    for (const tail of [Buffer.from('"b":1}'), Buffer.from('é😀'.repeat(30_000))]) {
      const joined = Buffer.concat([Buffer.from('{'), tail]);
      expect(hmac.base64url('{', tail)).toBe(createHmac('sha256', key).update(joined).digest('base64url'));
    }
  });

  it('hmac - RFC 4231 test case 2 (key "Jefe")', () => {
    const digest = new KeyedHmacSha256(Buffer.from('Jefe')).base64url('', 'what do ya want for nothing?');
    expect(Buffer.from(digest, 'base64url').toString('hex')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
