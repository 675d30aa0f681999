import { readFileSync } from 'node:fs';
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadSchema } from '../../schema/load-schema.js';
import { buildGraphqlSchema } from '../schema/build-schema.js';
import { findSlotVariables } from './slot-variables.js';

const text = readFileSync(new URL('../../../examples/social/schema.graphql', import.meta.url), 'utf8');
const loaded = loadSchema([{ file: 'schema.graphql', text }]);
if (!loaded.ok) throw new Error('example schema does not load');
const generated = buildGraphqlSchema(loaded.model);

/** The slot names of the document's (first) operation. */
function slotsOf(document: string): string[] {
  const definitions = parse(document).definitions;
  const operation = definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  if (operation === undefined) throw new Error('no operation');
  const fragments = new Map(
    definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  return findSlotVariables(operation, fragments, generated.query).map((slot) => slot.name);
}

describe('findSlotVariables', () => {
  it('finds the id of a `one` root field, used once, declared ID or ID!', () => {
    expect(slotsOf(`query($id: ID!) { user(id: $id) { name posts(first: 10) { title } } }`)).toEqual(['id']);
    expect(slotsOf(`query($id: ID = "x") { a: user(id: $id) { name } }`)).toEqual(['id']);
    expect(slotsOf(`query($a: ID!, $b: ID!) { x: user(id: $a) { id } y: post(id: $b) { id } }`)).toEqual(['a', 'b']);
    expect(slotsOf(`query($id: ID!, $with: Boolean!) { user(id: $id) @include(if: $with) { id } }`)).toEqual(['id']);
  });

  it('leaves out a variable used anywhere else, fragments included', () => {
    expect(slotsOf(`query($id: ID!) { a: user(id: $id) { id } b: user(id: $id) { id } }`)).toEqual([]);
    expect(slotsOf(`query($id: ID!) { user(id: $id) { id } users(filter: { id: { eq: $id } }) { id } }`)).toEqual([]);
    expect(slotsOf(`query($id: ID!) { user(id: $id) { ...F } } fragment F on User { followers(filter: { id: { ne: $id } }) { id } }`)).toEqual([]);
    expect(slotsOf(`query($id: ID!) { user(id: $id) { id } ...Q } fragment Q on Query { users(filter: { id: { in: [$id] } }) { id } }`)).toEqual([]);
  });

  it('counts a fragment once per spread', () => {
    const twice = `query($id: ID!) { ...A ...B } fragment A on Query { ...U } fragment B on Query { ...U } fragment U on Query { user(id: $id) { id } }`;
    expect(slotsOf(twice)).toEqual([]);
  });

  it('takes only the whole id argument of a `one` root field written in the operation', () => {
    // In a fragment at the root it would be safe, but it is not worth the analysis.
    expect(slotsOf(`query($id: ID!) { ...U } fragment U on Query { user(id: $id) { id } }`)).toEqual([]);
    expect(slotsOf(`query($id: ID!) { users(filter: { id: { eq: $id } }) { id } }`)).toEqual([]);
    expect(slotsOf(`query($id: ID!) { users(first: 1) { id } user(id: "x") { followers(filter: { id: { eq: $id } }) { id } } }`)).toEqual([]);
    expect(slotsOf(`query($id: String!) { user(id: $id) { id } }`)).toEqual([]);
    expect(slotsOf(`query($ids: [ID!]!) { users(filter: { id: { in: $ids } }) { id } }`)).toEqual([]);
  });

  it('finds none in a mutation: it reads its arguments as it runs', () => {
    expect(slotsOf(`mutation($id: ID!) { deleteUser(id: $id) { id } }`)).toEqual([]);
  });
});
