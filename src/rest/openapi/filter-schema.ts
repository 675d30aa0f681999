import type { Field, ResourceType } from '../../schema/model.js';
import { annotations, scalarValueSchema } from './field-schemas.js';
import type { JsonSchema } from './openapi-types.js';

/**
 * The `filter` query parameter of a type, as the REST grammar reads it
 * (`query-params.ts`, `build-filter.ts`):
 *
 *   filter[age][gte]=18   filter[name]=Ada (eq)   filter[status][in]=A,B   filter[bio][isNull]=true
 *   filter[or][0][name][startsWith]=A&filter[or][1][age][lt]=30   filter[not][status]=DRAFT
 *
 * Each field lists exactly the operators the planner accepts for it.
 *
 * The grammar nests without end (`filter[not][or][0][not]…`), but the
 * schema describes one level of `and`/`or`/`not` over plain conditions and
 * says so: a self-referencing schema sent API references that flatten a
 * deepObject parameter (Scalar's /docs) into endless recursion, which
 * left every parameter of the page unshown.
 */
export function filterSchema(type: ResourceType): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of type.fields) {
    const schema = fieldFilterSchema(field);
    if (schema === undefined) continue;
    properties[field.name] = schema;
    // The old name of a renamed field (`@renamed`) filters the same.
    if (field.renamedFrom !== undefined) properties[field.renamedFrom] = { ...schema, deprecated: true };
  }
  // Not closed: deeper `and`/`or`/`not` are allowed here, undescribed.
  const conditions: JsonSchema = { type: 'object', properties };
  const indexed = (word: string): JsonSchema => ({
    type: 'object',
    description: `Conditions combined with ${word.toUpperCase()}, indexed from 0: \`filter[${word}][0][field][op]=value\`.`,
    propertyNames: { pattern: '^[0-9]+$' },
    additionalProperties: { ...conditions, description: 'Conditions on fields; `and`, `or` and `not` nest here too, to any depth.' },
  });
  return {
    type: 'object',
    description:
      `Conditions on ${type.plural}, combined with AND. \`filter[field]=value\` means equality; \`filter[field][op]=value\` ` +
      'applies an operator; `in` takes a comma-separated list; `isNull` takes true or false. ' +
      '`and`, `or` and `not` combine conditions and nest to any depth (`filter[not][or][0][name]=Ada`).',
    properties: {
      ...properties,
      and: indexed('and'),
      or: indexed('or'),
      not: { ...conditions, description: 'Records that do not match these conditions (`and`, `or` and `not` nest here too).' },
    },
    additionalProperties: false,
  };
}

const TEXT_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'isNull'] as const;
const ORDERED_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'isNull'] as const;
const EQUALITY_OPERATORS = ['eq', 'ne', 'in', 'isNull'] as const;

/** Which operators `build-filter.ts` accepts on a field, or undefined when it cannot be filtered on. */
export function filterOperators(field: Field): readonly string[] | undefined {
  switch (field.kind) {
    case 'toOne':
      return TEXT_OPERATORS;
    case 'file':
      return ['isNull'];
    case 'scalar':
      if (field.list || field.scalar === 'JSON') return undefined;
      if (field.scalar === 'Boolean') return EQUALITY_OPERATORS;
      if (field.enum === undefined && (field.scalar === 'String' || field.scalar === 'ID')) return TEXT_OPERATORS;
      return ORDERED_OPERATORS;
    case 'toMany':
    case 'manyToMany':
      return undefined;
  }
}

function fieldFilterSchema(field: Field): JsonSchema | undefined {
  const operators = filterOperators(field);
  if (operators === undefined) return undefined;
  const operand: JsonSchema =
    field.kind === 'scalar' ? scalarValueSchema(field) : { type: 'string', description: `The id of a ${field.kind === 'toOne' ? field.target : 'record'}.` };
  const conditions: Record<string, JsonSchema> = {};
  for (const op of operators) {
    if (op === 'isNull') conditions[op] = { type: 'boolean', description: 'true: only records where it is null; false: only where it is not.' };
    else if (op === 'in') conditions[op] = { type: 'string', description: 'Any of these values, separated by commas.' };
    else conditions[op] = operand;
  }
  const byOperator: JsonSchema = { type: 'object', properties: conditions, additionalProperties: false, minProperties: 1 };
  // `filter[field]=value` is equality, except on files, where only isNull applies.
  const forms = field.kind === 'file' ? byOperator : { oneOf: [operand, byOperator] };
  return { ...forms, ...annotations({ description: undefined, deprecated: field.deprecated }, `Operators: ${operators.join(', ')}.`) };
}
