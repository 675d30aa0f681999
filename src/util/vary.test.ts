import { describe, expect, it } from 'vitest';
import { mergeVary } from './vary.js';

describe('mergeVary', () => {
  it('keeps every name once, case-insensitively, in the order first named', () => {
    expect(mergeVary('Origin', 'Accept, authorization', ['accept-encoding', 'Authorization, origin'])).toBe('Origin, Accept, authorization, accept-encoding');
  });
  it('is undefined when nothing is named, and * when anything is *', () => {
    expect(mergeVary(undefined, '', ' , ')).toBeUndefined();
    expect(mergeVary('Origin', '*', 'Accept')).toBe('*');
  });
});
