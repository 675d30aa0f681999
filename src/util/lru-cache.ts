/**
 * A bounded map that forgets the least recently used entries first, in the
 * two-generation form (as `hashlru` and `quick-lru`): entries live in
 * `current` until it holds `capacity`, then it becomes `previous` and the
 * one before is dropped whole. A hit in `current` is one Map lookup, which
 * matters because every request looks several of these up; a hit in
 * `previous` moves the entry back into `current`. It holds at most
 * 2 × capacity entries, and never drops one used within the last
 * `capacity` insertions.
 */
export class LruCache<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LRU capacity must be a positive integer, not ${capacity}`);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  get(key: K): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined || this.current.has(key)) return value;
    if (!this.previous.has(key)) return undefined;
    const old = this.previous.get(key) as V;
    this.previous.delete(key);
    this.insert(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.current.has(key)) {
      this.current.set(key, value);
      return;
    }
    this.previous.delete(key);
    this.insert(key, value);
  }

  /** Forgets `key` (an entry that expired). */
  delete(key: K): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  private insert(key: K, value: V): void {
    this.current.set(key, value);
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
  }
}
