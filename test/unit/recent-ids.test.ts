import { describe, expect, it } from 'vitest';
import { RecentIds } from '../../src/rpc/recent-ids.js';

describe('recent ids', () => {
  it('recent ids - remembers the last N ids and forgets older ones in order', () => {
    const recent = new RecentIds(3);
    for (const id of ['a', 'b', 'c', 'a', 'd']) recent.add(id);
    expect(['a', 'b', 'c', 'd'].map((id) => recent.has(id))).toEqual([false, true, true, true]);
    recent.add('e');
    expect(recent.has('b')).toBe(false);
    expect(recent.has('e')).toBe(true);
  });
});
