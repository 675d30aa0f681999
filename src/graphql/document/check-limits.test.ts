import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from '../graphql-options.js';
import { checkLimits } from './check-limits.js';

const limitsOf = (errors: ReturnType<typeof checkLimits>): unknown[] => errors.map((error) => error.extensions['limit']);
const check = (text: string, limits: Partial<GraphqlLimits> = {}): ReturnType<typeof checkLimits> =>
  checkLimits(parse(text), { ...DEFAULT_GRAPHQL_LIMITS, ...limits });

describe('checkLimits', () => {
  it('counts aliases, directives and root fields as executed (each fragment use counts)', () => {
    const doc = '{ ...F ...F } fragment F on Query { x: a y: b @skip(if: false) }';
    expect(limitsOf(check(doc, { maxAliases: 3 }))).toEqual(['maxAliases']);
    expect(check(doc, { maxAliases: 4 })).toEqual([]);
    expect(limitsOf(check(doc, { maxDirectives: 1 }))).toEqual(['maxDirectives']);
    expect(limitsOf(check('{ a b c }', { maxRootFields: 2 }))).toEqual(['maxRootFields']);
  });

  it('reports every limit a document breaks, naming it in the message', () => {
    const errors = check('{ x: a { b { c } } y: d @include(if: true) }', { maxAliases: 0, maxRootFields: 1, maxDirectives: 0 });
    expect(limitsOf(errors)).toEqual(['maxAliases', 'maxRootFields', 'maxDirectives']);
    expect(errors.every((error) => error.extensions['code'] === 'QUERY_TOO_COMPLEX')).toBe(true);
    expect(errors[0]?.message).toBe('The operation uses 2 aliases; the limit is 0 (maxAliases).');
  });

  it('stays fast on fragments that double at every level, and on cycles', () => {
    const levels = 40;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on T { a: x ${i + 1 < levels ? `...F${i + 1} ...F${i + 1}` : ''} }`).join('\n');
    const errors = check(`{ ...F0 } ${fragments}`);
    expect(limitsOf(errors)).toContain('maxAliases');
    expect(errors.find((error) => error.extensions['limit'] === 'maxAliases')?.message).toContain('more than a billion');
    expect(check('{ ...A } fragment A on T { ...B } fragment B on T { ...A }')).toEqual([]);
  });

  it('lets introspection nest ofType but refuses a schema list inside itself', () => {
    expect(check('{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }')).toEqual([]);
    expect(limitsOf(check('{ __type(name: "T") { fields { type { fields { name } } } } }'))).toEqual(['introspection']);
    expect(limitsOf(check('{ __schema { ...S } } fragment S on __Schema { types { ...T } } fragment T on __Type { fields { type { ...T } } }'))).toEqual([
      'introspection',
    ]);
  });
});
