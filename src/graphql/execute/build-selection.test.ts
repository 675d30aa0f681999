import { readFileSync } from 'node:fs';
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../errors/api-error.js';
import { DEFAULT_LIMITS } from '../../plan/build-read.js';
import { loadSchema } from '../../schema/load-schema.js';
import { buildGraphqlSchema } from '../schema/build-schema.js';
import { compileOperation } from './compile-operation.js';

const text = readFileSync(new URL('../../../examples/social/schema.graphql', import.meta.url), 'utf8');
const loaded = loadSchema([{ file: 'schema.graphql', text }]);
if (!loaded.ok) throw new Error('example schema does not load');
const generated = buildGraphqlSchema(loaded.model);

/** `levels` fragments, each spreading the next three times under a relation (3^levels relations expanded). */
function fragmentBomb(levels: number, spreadsUnder: (next: string) => string): string {
  const fragments: string[] = [];
  for (let i = 0; i < levels; i++) fragments.push(`fragment F${i} on User { ${spreadsUnder(`...F${i + 1}`)} }`);
  fragments.push(`fragment F${levels} on User { id name }`);
  return `{ users(first: 1) { ...F0 } } ${fragments.join(' ')}`;
}

/** Compiles `document`; returns the error it was refused with (or undefined) and the field requests built. */
function compile(document: string): { readonly error: unknown; readonly nodes: number } {
  const definitions = parse(document).definitions;
  const operation = definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = new Map(
    definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const work = { nodes: 0 };
  try {
    compileOperation({ schema: generated.schema, fragments, variables: {}, generated, limits: DEFAULT_LIMITS, work }, operation);
    return { error: undefined, nodes: work.nodes };
  } catch (error) {
    return { error, nodes: work.nodes };
  }
}

describe('buildSelection', () => {
  it('stops a fragment bomb at maxRelations, having built a bounded number of field requests', () => {
    // Ten levels of followers fit in maxDepth: the relation limit is met first.
    const { error, nodes } = compile(fragmentBomb(10, (next) => `followers(first: 1) { ${next} } following(first: 1) { ${next} }`));
    expect(isApiError(error) && error.code).toBe('QUERY_TOO_COMPLEX');
    expect(isApiError(error) && error.extensions['limit']).toBe('maxRelations');
    // 2^10 relations unbounded; the limit is 40 relations, each with at most two fields.
    expect(nodes).toBeLessThanOrEqual((DEFAULT_LIMITS.maxRelations + 1) * 3 + 1);
  });

  it('stops a chain of fragments at maxDepth, with the planner’s message', () => {
    const { error } = compile(fragmentBomb(30, (next) => `followers(first: 1) { ${next} }`));
    expect(isApiError(error) && error.code).toBe('QUERY_TOO_COMPLEX');
    expect(isApiError(error) && error.message).toContain(`the limit is ${DEFAULT_LIMITS.maxDepth} (maxDepth)`);
  });

  it('expands a selection within the limits in full', () => {
    const { error, nodes } = compile(fragmentBomb(3, (next) => `followers(first: 1) { ${next} } following(first: 1) { ${next} }`));
    expect(error).toBeUndefined();
    // Below the root field: 2 + 4 + 8 relations, and id and name under each of the 8 innermost.
    expect(nodes).toBe(2 + 4 + 8 + 16);
  });
});
