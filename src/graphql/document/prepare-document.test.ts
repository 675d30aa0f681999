import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchema } from '../../schema/load-schema.js';
import { DEFAULT_GRAPHQL_LIMITS } from '../graphql-options.js';
import { buildGraphqlSchema } from '../schema/build-schema.js';
import { createDocumentPreparer } from './prepare-document.js';

const text = readFileSync(new URL('../../../examples/social/schema.graphql', import.meta.url), 'utf8');
const loaded = loadSchema([{ file: 'schema.graphql', text }]);
if (!loaded.ok) throw new Error('example schema does not load');
const prepare = createDocumentPreparer(buildGraphqlSchema(loaded.model), DEFAULT_GRAPHQL_LIMITS, 10);

const codes = (document: string): unknown[] => {
  const prepared = prepare(document);
  return prepared.ok ? [] : prepared.errors.map((error) => error.extensions['code']);
};

describe('createDocumentPreparer', () => {
  it('parses and validates once per text', () => {
    const first = prepare('{ users { name } }');
    expect(first.ok).toBe(true);
    expect(prepare('{ users { name } }')).toBe(first);
  });

  it('refuses a subscription whose root field is conditional, or that has two, as a validation error rather than throwing', () => {
    expect(codes('subscription($s: Boolean!) { postCreated @include(if: $s) { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes('subscription { postCreated @skip(if: true) { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes('subscription($s: Boolean!) { ...Root } fragment Root on Subscription { posts @skip(if: $s) { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes('subscription { postCreated { id } users { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes('subscription($s: Boolean!) { postCreated { id title @include(if: $s) } }')).toEqual([]);
  });

  it('tags each failure with its code', () => {
    expect(codes('{ users { name }')).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(codes('{ users { nmae } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes(`{ ${'__typename '.repeat(2001)}}`)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('gives input values in generated inputs the codes REST gives them', () => {
    expect(codes('mutation { createUser(input: { email: "a@b.c" }) { id } }')).toEqual(['INPUT_REQUIRED_FIELD']);
    expect(codes('mutation { createUser(input: { name: null, email: "a@b.c" }) { id } }')).toEqual(['INPUT_REQUIRED_FIELD']);
    expect(codes('mutation { createUser(input: { name: "A", email: "a@b.c", age: 3 }) { id } }')).toEqual(['INPUT_UNKNOWN_FIELD']);
    expect(codes('mutation { createUser(input: { name: "A", email: "a@b.c", createdAt: "2026-01-01" }) { id } }')).toEqual(['INPUT_READONLY_FIELD']);
    expect(codes('mutation { createUser(input: { name: "A", email: "a@b.c", role: KING }) { id } }')).toEqual(['INPUT_WRONG_TYPE']);
    expect(codes('{ users(filter: { name: { eq: 1 } }) { id } }')).toEqual(['QUERY_INVALID_FILTER']);
    expect(codes('{ users(filter: { posts: { eq: 1 } }) { id } }')).toEqual(['QUERY_INVALID_FILTER']);
    expect(codes('{ users(orderBy: [{ field: posts }]) { id } }')).toEqual(['QUERY_INVALID_ORDER']);
    expect(codes('{ users(first: "ten") { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});
