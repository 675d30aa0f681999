import { describe, expect, it } from 'vitest';
import { isWellFormedId, newId } from './ids.js';

describe('newId', () => {
  it('gives 26 URL-safe characters', () => {
    const id = newId();
    expect(id).toHaveLength(26);
    expect(isWellFormedId(id)).toBe(true);
  });

  it('sorts ids made in one millisecond in the order they were made', () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 1000 }, () => newId(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => id.slice(0, 10) === (ids[0] as string).slice(0, 10))).toBe(true);
  });

  it('keeps sorting when the clock steps back', () => {
    const later = newId(Date.now() + 120_000);
    const earlier = newId(Date.now());
    expect(earlier > later).toBe(true);
  });

  it('starts from the new time, with new random bits, once the clock moves on', () => {
    const base = Date.now() + 180_000;
    const first = newId(base);
    const second = newId(base + 1000);
    expect(second > first).toBe(true);
    expect(second.slice(0, 10)).not.toBe(first.slice(0, 10));
  });
});
