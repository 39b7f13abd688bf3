import { describe, expect, it } from 'vitest';
import { CommitWatermark } from '../../transports/kafka/commit-watermark.js';

describe('kafka - commit watermark', () => {
  it('kafka - commits only past the contiguous settled prefix', () => {
    const mark = new CommitWatermark();
    for (const offset of [10n, 11n, 12n, 13n]) mark.track(offset);
    expect(mark.settle(12n)).toBeUndefined();
    expect(mark.settle(11n)).toBeUndefined();
    expect(mark.settle(10n)).toBe(13n);
    expect(mark.pending).toBe(1);
    expect(mark.settle(13n)).toBe(14n);
    expect(mark.pending).toBe(0);
  });

  it('kafka - a message waiting for redelivery holds the commit back, others still settle', () => {
    const mark = new CommitWatermark();
    for (let o = 0n; o < 2000n; o++) mark.track(o);
    for (let o = 1n; o < 2000n; o++) expect(mark.settle(o)).toBeUndefined();
    expect(mark.settle(0n)).toBe(2000n);
  });
});
