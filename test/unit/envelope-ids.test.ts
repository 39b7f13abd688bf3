import { describe, expect, it } from 'vitest';
import { isUuid, newCorrelationId, newMessageId, uuidV7Timestamp, validateEnvelope } from '../../src/envelope/index.js';

describe('envelope ids', () => {
  it('envelope - newMessageId returns RFC 9562 UUID version 7 text', () => {
    for (let i = 0; i < 1000; i++) {
      const id = newMessageId();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isUuid(id)).toBe(true);
    }
  });

  it('envelope - the id carries the current millisecond timestamp', () => {
    const before = Date.now();
    const id = newMessageId();
    const after = Date.now();
    const stamp = uuidV7Timestamp(id);
    expect(stamp).toBeGreaterThanOrEqual(before);
    // The counter may borrow a millisecond or two from the future under heavy load.
    expect(stamp).toBeLessThanOrEqual(after + 5);
  });

  it('envelope - ids from one process are unique and strictly increasing', () => {
    const ids = Array.from({ length: 50_000 }, () => newMessageId());
    expect(new Set(ids).size).toBe(ids.length);
    let outOfOrder = 0;
    for (let i = 1; i < ids.length; i++) if (!(ids[i]! > ids[i - 1]!)) outOfOrder++;
    expect(outOfOrder).toBe(0);
  });

  it('envelope - correlation ids have the same shape', () => {
    expect(uuidV7Timestamp(newCorrelationId())).toBeTypeOf('number');
  });

  it('envelope - generated ids are valid envelope ids', () => {
    const result = validateEnvelope({
      version: 1,
      kind: 'event',
      messageId: newMessageId(),
      correlationId: newCorrelationId(),
      from: 'agent://a',
      to: 'agent://b',
      capability: 'x',
      payload: null,
    });
    expect(result.ok).toBe(true);
  });

  it('envelope - isUuid accepts any version in either case and rejects other text', () => {
    expect(isUuid('123e4567-e89b-12d3-a456-426614174000')).toBe(true);
    expect(isUuid('123E4567-E89B-42D3-A456-426614174000')).toBe(true);
    expect(isUuid('123e4567e89b12d3a456426614174000')).toBe(false);
    expect(isUuid('123e4567-e89b-12d3-a456-42661417400')).toBe(false);
    expect(isUuid('g23e4567-e89b-12d3-a456-426614174000')).toBe(false);
    expect(uuidV7Timestamp('123e4567-e89b-42d3-a456-426614174000')).toBeUndefined();
    expect(uuidV7Timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')).toBe(0x017f22e279b0);
  });
});
