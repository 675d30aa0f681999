import { describe, expect, it } from 'vitest';
import { negotiate } from './negotiate.js';

describe('negotiate', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['application/graphql-response+json, application/json', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json;q=0.9', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
    ['text/plain', undefined],
    ['application/xml', undefined],
    ['application/json;q=0', undefined],
  ])('Accept %s → %s', (accept, expected) => {
    expect(negotiate(accept, true)).toBe(expected);
  });

  it('offers HTML only where allowed (GET)', () => {
    expect(negotiate('text/html,*/*;q=0.8', false)).toBe('application/json');
    expect(negotiate('text/html', false)).toBeUndefined();
  });

  it('answers a header it has seen before as it did the first time, for each of GET and POST', () => {
    for (let i = 0; i < 3; i++) {
      expect(negotiate('text/html;q=0.9', true)).toBe('text/html');
      expect(negotiate('text/html;q=0.9', false)).toBeUndefined();
    }
  });

  it('still answers headers it no longer remembers, past its limit', () => {
    for (let i = 0; i < 200; i++) expect(negotiate(`application/json;q=0.${(i % 9) + 1}, x/y${i}`, false)).toBe('application/json');
    expect(negotiate('application/xml, x/never-seen', false)).toBeUndefined();
  });
});
