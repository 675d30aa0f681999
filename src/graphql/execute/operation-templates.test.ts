import { testContext } from '../../../test/support/contexts.js';
import { readFileSync } from 'node:fs';
import { getVariableValues, GraphQLID, Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../plan/build-read.js';
import type { Principal } from '../../plan/principal.js';
import { idParam } from '../../plan/plan-template.js';
import type { ReadPlan } from '../../plan/read-plan.js';
import { loadSchema } from '../../schema/load-schema.js';
import { buildGraphqlSchema } from '../schema/build-schema.js';
import { compileOperation } from './compile-operation.js';
import { OperationTemplates, type BoundOperation } from './operation-templates.js';
import { planReads, type PlannedRead } from './run-operation.js';
import { findSlotVariables } from './slot-variables.js';

const text = readFileSync(new URL('../../../examples/social/schema.graphql', import.meta.url), 'utf8');
const loaded = loadSchema([{ file: 'schema.graphql', text }]);
if (!loaded.ok) throw new Error('example schema does not load');
const model = loaded.model;
/** Rules add their own params; these tests are about the slots alone. */
const ADMIN: Principal = { id: null, role: 'ADMIN', claims: {}, admin: true, via: 'admin-key' };
const generated = buildGraphqlSchema(model);

/** Compiles and plans a query the way the handler's full path does, and remembers it; returns its key. */
function rememberQuery(templates: OperationTemplates, document: string, variables: Record<string, unknown>): (raw: Record<string, unknown>) => string | undefined {
  const definitions = parse(document).definitions;
  const operation = definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  if (operation === undefined) throw new Error('no operation');
  const fragments = new Map(
    definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const coerced = getVariableValues(generated.schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors !== undefined) throw new Error(coerced.errors.map((error) => error.message).join('; '));
  const compiled = compileOperation({ schema: generated.schema, fragments, variables: coerced.coerced, generated, limits: DEFAULT_LIMITS, work: { nodes: 0 } }, operation);
  const reads = planReads({ engine: { model }, planLimits: DEFAULT_LIMITS, context: testContext(ADMIN) }, compiled.steps);
  const slots = findSlotVariables(operation, fragments, generated.query);
  const slotNames = new Set(slots.map((slot) => slot.name));
  const keyed = (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value).filter((name) => !slotNames.has(name));
  const keyOf = (raw: Record<string, unknown>): string | undefined => templates.keyOf(`doc ${document} `, keyed, raw);
  templates.remember(keyOf(variables) as string, slots, compiled, reads);
  return keyOf;
}

function planOf(read: PlannedRead | undefined): ReadPlan {
  if (read === undefined || !('plan' in read)) throw new Error('no plan');
  return read.plan;
}

function use(templates: OperationTemplates, key: string | undefined, raw: Record<string, unknown>): BoundOperation | undefined {
  return key === undefined ? undefined : templates.use(key, raw);
}

describe('OperationTemplates.keyOf', () => {
  const templates = new OperationTemplates(GraphQLID);
  const key = (raw: Record<string, unknown>, keyed: readonly string[] = ['v']): string | undefined => templates.keyOf('p ', keyed, raw);

  it('tells apart every raw value that coercion could treat differently', () => {
    const values = [undefined, null, '', 'x', 0, -0, 1, 1.5, true, false, [], [1], {}, { a: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, '1', '[1]', 'null'];
    const keys = values.map((value) => key(value === undefined ? {} : { v: value }));
    expect(keys.every((k) => k !== undefined)).toBe(true);
    expect(new Set(keys).size).toBe(values.length);
  });

  it('keys only the declared variables it is given', () => {
    expect(key({ v: 1, other: 2 })).toBe(key({ v: 1 }));
    expect(key({ v: 1, w: 2 }, ['v', 'w'])).not.toBe(key({ v: 2, w: 1 }, ['v', 'w']));
    expect(key({ v: 1 }, ['v', 'w'])).not.toBe(key({ w: 1 }, ['v', 'w']));
  });

  it('does not key values that are not plain JSON, nor very large or deep ones', () => {
    expect(key({ v: new Date(0) })).toBeUndefined();
    expect(key({ v: { file: new Uint8Array(1) } })).toBeUndefined();
    expect(key({ v: Number.NaN })).toBeUndefined();
    expect(key({ v: [undefined] })).toBeUndefined();
    expect(key({ v: 'x'.repeat(10_000) })).toBeUndefined();
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(key({ v: deep })).toBeUndefined();
  });
});

describe('OperationTemplates.use', () => {
  const document = `query($id: ID!, $n: Int!) { user(id: $id) { name posts(first: $n) { title } } }`;

  it('binds the id into the remembered plan, sharing its root', () => {
    const templates = new OperationTemplates(GraphQLID);
    const keyOf = rememberQuery(templates, document, { id: 'first', n: 3 });
    const a = use(templates, keyOf({ id: 'second', n: 3 }), { id: 'second', n: 3 });
    const b = use(templates, keyOf({ id: 7, n: 3 }), { id: 7, n: 3 });
    const planA = planOf(a?.reads?.[0]);
    const planB = planOf(b?.reads?.[0]);
    expect(planA.root).toBe(planB.root);
    expect(planA.params[idParam(planA) ?? -1]).toBe('second');
    // An integer is an ID as graphql-js coerces it: its decimal text.
    expect(planB.params[idParam(planB) ?? -1]).toBe('7');
    expect(planA.params.filter((value) => value !== 'second')).toEqual(planB.params.filter((value) => value !== '7'));
    // The steps carry no argument values: the first request's id would be wrong for every later one.
    expect(a?.steps[0]).toMatchObject({ kind: 'data', args: {} });
    // Another page size is another key, so no template yet.
    expect(use(templates, keyOf({ id: 'x', n: 4 }), { id: 'x', n: 4 })).toBeUndefined();
  });

  it('gives nothing when a slot value is one the full path must judge', () => {
    const templates = new OperationTemplates(GraphQLID);
    const keyOf = rememberQuery(templates, document, { id: 'first', n: 3 });
    for (const id of [null, true, 1.5, {}, ['x'], Number.NaN]) expect(use(templates, keyOf({ n: 3 }), { id, n: 3 })).toBeUndefined();
    expect(use(templates, keyOf({ n: 3 }), { n: 3 })).toBeUndefined();
  });

  it('checks a slot left out by @include, with nothing to bind', () => {
    const templates = new OperationTemplates(GraphQLID);
    const keyOf = rememberQuery(templates, `query($id: ID!, $with: Boolean!) { user(id: $id) @include(if: $with) { id } usersCount }`, { id: 'a', with: false });
    expect(use(templates, keyOf({ with: false }), { id: true, with: false })).toBeUndefined();
    expect(use(templates, keyOf({ with: false }), { id: 'b', with: false })?.steps.map((step) => step.key)).toEqual(['usersCount']);
    expect(use(templates, keyOf({ with: true }), { id: 'b', with: true })).toBeUndefined();
  });

  it('binds each slot into its own plan', () => {
    const templates = new OperationTemplates(GraphQLID);
    const keyOf = rememberQuery(templates, `query($a: ID!, $b: ID!) { x: user(id: $a) { id } y: post(id: $b) { id } }`, { a: '1', b: '2' });
    const bound = use(templates, keyOf({}), { a: 'p', b: 'q' });
    expect([0, 1].map((index) => planOf(bound?.reads?.[index]).params)).toEqual([['p'], ['q']]);
  });

  it('remembers nothing that failed to plan', () => {
    const templates = new OperationTemplates(GraphQLID);
    const keyOf = rememberQuery(templates, `query($id: ID!) { user(id: $id) { id } users(after: "bad") { id } }`, { id: 'a' });
    expect(use(templates, keyOf({}), { id: 'a' })).toBeUndefined();
  });
});
