import { describe, expect, it } from 'vitest';
import { paramsFromBody, paramsFromSearch } from './graphql-params.js';

describe('GraphQL-over-HTTP parameters', () => {
  it('reads a POST body, null meaning absent', () => {
    expect(paramsFromBody('{"query":"{ a }","variables":null,"operationName":null,"extensions":{"x":1}}')).toEqual({
      query: '{ a }',
      variables: undefined,
      operationName: undefined,
      extensions: { x: 1 },
      documentId: undefined,
    });
    expect(paramsFromBody('{"documentId":"abc"}').documentId).toBe('abc');
  });

  it.each([
    ['', 'BAD_REQUEST'],
    ['{ "not json', 'MALFORMED_JSON'],
    ['[{"query":"{ a }"}]', 'BAD_REQUEST'],
    ['"text"', 'BAD_REQUEST'],
    ['{"query":1}', 'BAD_REQUEST'],
    ['{"query":"{ a }","variables":"{}"}', 'BAD_REQUEST'],
    ['{"query":"{ a }","variables":[1]}', 'BAD_REQUEST'],
    ['{"query":"{ a }","operationName":false}', 'BAD_REQUEST'],
  ])('refuses the body %s with %s', (body, code) => {
    expect(() => paramsFromBody(body)).toThrow(expect.objectContaining({ code }));
  });

  it('reads a query string, with JSON variables', () => {
    const search = new URLSearchParams({ query: '{ a }', variables: '{"id":"1"}', operationName: '' }).toString();
    expect(paramsFromSearch(search)).toMatchObject({ query: '{ a }', variables: { id: '1' }, operationName: undefined });
    expect(() => paramsFromSearch('query=a&query=b')).toThrow(/appears 2 times/);
    expect(() => paramsFromSearch('query=a&variables=%7Bnope')).toThrow(expect.objectContaining({ code: 'MALFORMED_JSON' }));
    expect(() => paramsFromSearch('query=a&variables=3')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
