import { describe, expect, it } from 'vitest';
import { editDistance, suggest } from './suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps', () => {
    expect(editDistance('user', 'user')).toBe(0);
    expect(editDistance('usr', 'user')).toBe(1);
    expect(editDistance('users', 'user')).toBe(1);
    expect(editDistance('usar', 'user')).toBe(1);
    expect(editDistance('nmae', 'name')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('suggest', () => {
  it('returns the closest candidate', () => {
    expect(suggest('Usr', ['Post', 'User', 'Order'])).toBe('User');
    expect(suggest('uniqe', ['unique', 'index', 'readonly'])).toBe('unique');
    expect(suggest('nmae', ['name', 'email'])).toBe('name');
  });

  it('prefers a case-only difference over a typo', () => {
    expect(suggest('user', ['Users', 'User'])).toBe('User');
  });

  it('returns undefined when nothing is close', () => {
    expect(suggest('xyz', ['User', 'Post'])).toBeUndefined();
    expect(suggest('Usr', [])).toBeUndefined();
  });

  it('does not suggest the input itself', () => {
    expect(suggest('User', ['User'])).toBeUndefined();
  });

  it('breaks ties alphabetically', () => {
    expect(suggest('cat', ['cut', 'bat'])).toBe('bat');
  });
});
