import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../../src/expiring-map.js';

interface Item {
  readonly value: string;
  readonly expiresAt: number;
}

const item = (value: string, expiresAt: number): Item => ({ value, expiresAt });
const map = (maxEntries: number): ExpiringMap<Item> => new ExpiringMap<Item>((entry) => entry.expiresAt, maxEntries);

describe('expiring map', () => {
  it('expiring map - keeps what was set until its expiry passes a sweep', () => {
    const entries = map(100);
    entries.set('a', item('1', 10));
    entries.set('b', item('2', 20));
    entries.sweep(9);
    expect(entries.get('a')?.value).toBe('1');
    entries.sweep(10);
    expect(entries.get('a')).toBeUndefined();
    expect(entries.get('b')?.value).toBe('2');
    expect(entries.size).toBe(1);
    entries.sweep(20);
    expect(entries.size).toBe(0);
  });

  it('expiring map - an entry written again lives until its latest expiry', () => {
    const entries = map(100);
    entries.set('a', item('claimed', 10));
    entries.set('a', item('done', 50));
    expect(entries.size).toBe(1);
    entries.sweep(30);
    expect(entries.get('a')?.value).toBe('done');
    entries.sweep(50);
    expect(entries.get('a')).toBeUndefined();
  });

  it('expiring map - a deleted entry is gone, and its queued expiry does not touch a later one of the same key', () => {
    const entries = map(100);
    entries.set('a', item('first', 10));
    entries.delete('a');
    expect(entries.get('a')).toBeUndefined();
    expect(entries.size).toBe(0);
    entries.set('a', item('second', 40));
    entries.sweep(20);
    expect(entries.get('a')?.value).toBe('second');
    expect(entries.size).toBe(1);
  });

  it('expiring map - a new key on a full map makes room by dropping the oldest write', () => {
    const entries = map(3);
    for (const key of ['a', 'b', 'c']) entries.set(key, item(key, 1e9));
    // Written again (a claim completed): the newer write is what counts for its age.
    entries.set('a', item('a again', 2e9));
    expect(entries.size).toBe(3);
    entries.set('d', item('d', 1e9));
    expect(entries.size).toBe(3);
    expect(entries.get('b')).toBeUndefined();
    expect([entries.get('a')?.value, entries.get('c')?.value, entries.get('d')?.value]).toEqual(['a again', 'c', 'd']);
  });

  it('expiring map - a live entry ahead of expired ones holds the sweep, as writes come in expiry order', () => {
    const entries = map(100);
    entries.set('late', item('late', 100));
    entries.set('early', item('early', 10));
    entries.sweep(50);
    expect(entries.get('early')?.value).toBe('early');
    entries.sweep(100);
    expect(entries.size).toBe(0);
  });

  it('expiring map - many entries: every one found, spread so that no internal Map holds more than a few thousand', () => {
    const entries = map(1_000_000);
    const count = 200_000;
    for (let i = 0; i < count; i++) entries.set(`${i.toString(16).padStart(8, '0')}-msg|${1_764_000_000_000 + i}`, item(String(i), 1_000 + i));
    expect(entries.size).toBe(count);
    for (let i = 0; i < count; i += 997) expect(entries.get(`${i.toString(16).padStart(8, '0')}-msg|${1_764_000_000_000 + i}`)?.value).toBe(String(i));
    expect(entries.largestShardSize).toBeLessThanOrEqual(2_000);
    // Sweeping across many blocks of the queue leaves exactly the entries not yet expired.
    entries.sweep(1_000 + count - 11);
    expect(entries.size).toBe(10);
    expect(entries.get(`${(count - 1).toString(16).padStart(8, '0')}-msg|${1_764_000_000_000 + count - 1}`)?.value).toBe(String(count - 1));
  });

  it('expiring map - keeps working after its queue emptied', () => {
    const entries = map(10);
    entries.set('a', item('a', 5));
    entries.sweep(5);
    expect(entries.size).toBe(0);
    entries.set('b', item('b', 15));
    entries.sweep(10);
    expect(entries.get('b')?.value).toBe('b');
    entries.sweep(15);
    expect(entries.size).toBe(0);
  });

  it('expiring map - maxEntries must be a positive integer', () => {
    expect(() => map(0)).toThrow(RangeError);
    expect(() => map(1.5)).toThrow(RangeError);
  });
});
