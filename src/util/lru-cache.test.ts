import { describe, expect, it } from 'vitest';
import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('stays within twice its capacity however many entries pass through', () => {
    const cache = new LruCache<number, number>(10);
    for (let i = 0; i < 1000; i++) {
      cache.set(i, i);
      expect(cache.size).toBeLessThanOrEqual(20);
    }
    // The newest entries are still there; the oldest are gone.
    expect(cache.get(999)).toBe(999);
    expect(cache.get(0)).toBeUndefined();
  });

  it('keeps an entry that is used, while entries that are not are dropped', () => {
    const cache = new LruCache<string, string>(4);
    cache.set('hot', 'kept');
    for (let i = 0; i < 100; i++) {
      cache.set(`cold ${i}`, 'x');
      expect(cache.get('hot')).toBe('kept');
    }
    expect(cache.get('cold 0')).toBeUndefined();
  });

  it('forgets a deleted entry in either generation', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('old', 1);
    cache.set('pushed', 2);
    cache.set('new', 3);
    cache.delete('old');
    cache.delete('new');
    expect(cache.get('old')).toBeUndefined();
    expect(cache.get('new')).toBeUndefined();
    expect(cache.get('pushed')).toBe(2);
  });

  it('replaces a value in place', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
