import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyedHmacSha256 } from '../../src/auth/keyed-hmac.js';

describe('keyed hmac', () => {
  it('hmac - pre-keyed states give the bytes createHmac gives, for keys shorter, equal to and longer than a block', () => {
    for (const keyLength of [1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const hmac = new KeyedHmacSha256(key);
      for (const message of ['', 'a', '{"kind":"request"}', 'é€😀'.repeat(50), randomBytes(1000)]) {
        const text = typeof message === 'string' ? message : message.toString('latin1');
        expect(hmac.digest(message).toString('hex'), `key ${keyLength} B`).toBe(createHmac('sha256', key).update(message).digest('hex'));
        // Digesting one message leaves the states ready for the next.
        expect(hmac.digest(text).equals(createHmac('sha256', key).update(text).digest())).toBe(true);
      }
    }
  });

  it('hmac - RFC 4231 test case 2 (key "Jefe")', () => {
    const digest = new KeyedHmacSha256(Buffer.from('Jefe')).digest('what do ya want for nothing?');
    expect(digest.toString('hex')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
