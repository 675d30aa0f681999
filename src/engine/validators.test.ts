import { describe, expect, it } from 'vitest';
import { ifMatchMatches, ifNoneMatchMatches } from './validators.js';

describe('If-None-Match (RFC 9110 §13.1.2, weak comparison)', () => {
  const etag = '"abc"';

  it('matches the one tag a client sends back', () => {
    expect(ifNoneMatchMatches('"abc"', etag)).toBe(true);
  });

  it('matches within a list, around spaces, and with W/ on either side', () => {
    expect(ifNoneMatchMatches('"x", "abc" ,"y"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
    expect(ifNoneMatchMatches(' * ', etag)).toBe(true);
  });

  it('does not match another tag, a part of one, or no header', () => {
    expect(ifNoneMatchMatches('"abcd"', etag)).toBe(false);
    expect(ifNoneMatchMatches('"x", "y"', etag)).toBe(false);
    expect(ifNoneMatchMatches('abc', etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});

describe('If-Match (strong comparison)', () => {
  it('matches the same strong tag or *, never a weak one', () => {
    expect(ifMatchMatches('"a", "abc"', '"abc"')).toBe(true);
    expect(ifMatchMatches('*', '"abc"')).toBe(true);
    expect(ifMatchMatches('W/"abc"', '"abc"')).toBe(false);
    expect(ifMatchMatches('*', undefined)).toBe(false);
  });
});
