import { describe, expect, it } from 'vitest';
import { SharedCounts } from './shared-counts.js';

describe('fixed-window counts in memory', () => {
  it('takes points while they fit, counts a refusal too, and starts over when the epoch-aligned window ends', () => {
    let now = 60_000 * 1000 + 15_000;
    const counts = new SharedCounts({ intervalMs: 1000, now: () => now });
    expect(counts.take('k', 10, 60_000, 4)).toEqual({ taken: true, remainingPoints: 6, msBeforeNext: 45_000 });
    expect(counts.take('k', 10, 60_000, 6)).toEqual({ taken: true, remainingPoints: 0, msBeforeNext: 45_000 });
    expect(counts.take('k', 10, 60_000, 1)).toEqual({ taken: false, remainingPoints: 0, msBeforeNext: 45_000 });
    expect(counts.take('big', 10, 60_000, 11)).toEqual({ taken: false, remainingPoints: 0, msBeforeNext: 45_000 });
    expect(counts.take('big', 10, 60_000, 1).taken).toBe(false);
    expect(counts.take('other', 10, 60_000, 1).remainingPoints).toBe(9);
    now += 45_000;
    expect(counts.take('k', 10, 60_000, 1)).toEqual({ taken: true, remainingPoints: 9, msBeforeNext: 60_000 });
    counts.close();
  });
});
