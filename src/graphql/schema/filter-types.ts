import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import type { Field, ScalarField } from '../../schema/model.js';
import { renamedReason } from '../../schema/renamed.js';
import { DateTimeScalar } from './scalars.js';
import { resourceType, type SchemaContext } from './schema-context.js';

/**
 * Filter and order inputs, the GraphQL spelling of the neutral filter in
 * `plan/build-filter.ts`: `{ and, or, not, <field>: { eq, in, isNull, … } }`.
 * Each scalar kind offers exactly the operators the planner accepts for it,
 * so a filter that type-checks here is one REST would accept too.
 */

const OPERATOR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  eq: 'Equal to.',
  ne: 'Not equal to (rows where the field is null match too).',
  lt: 'Less than.',
  lte: 'Less than or equal to.',
  gt: 'Greater than.',
  gte: 'Greater than or equal to.',
  in: 'Equal to one of these values (at most 500).',
  contains: 'Contains this text (case-sensitive).',
  startsWith: 'Starts with this text (case-sensitive).',
  isNull: 'true: the field is null; false: it is not.',
};

const TEXT_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'isNull'];
const ORDERED_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'isNull'];
const EQUALITY_OPERATORS = ['eq', 'ne', 'in', 'isNull'];

const BUILT_IN_FILTERS: Readonly<Record<string, { readonly base: GraphQLInputType; readonly operators: readonly string[] }>> = {
  IDFilter: { base: GraphQLID, operators: TEXT_OPERATORS },
  StringFilter: { base: GraphQLString, operators: TEXT_OPERATORS },
  IntFilter: { base: GraphQLInt, operators: ORDERED_OPERATORS },
  FloatFilter: { base: GraphQLFloat, operators: ORDERED_OPERATORS },
  DateTimeFilter: { base: DateTimeScalar, operators: ORDERED_OPERATORS },
  BooleanFilter: { base: GraphQLBoolean, operators: EQUALITY_OPERATORS },
  FileFilter: { base: GraphQLBoolean, operators: ['isNull'] },
};

export const OrderDirectionEnum = new GraphQLEnumType({
  name: 'OrderDirection',
  values: {
    ASC: { value: 'asc', description: 'Smallest first.' },
    DESC: { value: 'desc', description: 'Largest first.' },
  },
});

/** `StringFilter`, `IntFilter`, …, or `<Enum>Filter` for an enum of the model. */
export function operatorFilterType(ctx: SchemaContext, name: string): GraphQLInputObjectType {
  const builtIn = BUILT_IN_FILTERS[name];
  const subject = name.slice(0, -'Filter'.length);
  const base = builtIn?.base ?? ctx.enumType(subject);
  const operators = builtIn?.operators ?? EQUALITY_OPERATORS;
  const fields: GraphQLInputFieldConfigMap = {};
  for (const op of operators) {
    const type = op === 'in' ? new GraphQLList(new GraphQLNonNull(base)) : op === 'isNull' ? GraphQLBoolean : base;
    fields[op] = { type, description: OPERATOR_DESCRIPTIONS[op] };
  }
  return new GraphQLInputObjectType({ name, description: `Conditions on a ${subject} field; several are combined with AND.`, fields });
}

/** The operator input a field filters with, or undefined when it cannot be filtered on. */
export function operatorFilterName(field: Field): string | undefined {
  switch (field.kind) {
    case 'toOne':
      return 'IDFilter';
    case 'file':
      return 'FileFilter';
    case 'scalar':
      return isComparableScalar(field) ? (field.enum === undefined ? `${field.scalar}Filter` : `${field.enum}Filter`) : undefined;
    default:
      return undefined;
  }
}

function isComparableScalar(field: ScalarField): boolean {
  return !field.list && field.scalar !== 'JSON';
}

/** Fields a list can be ordered by: the planner's rule (`buildOrder`). */
export function isSortable(field: Field): boolean {
  return field.kind === 'toOne' || (field.kind === 'scalar' && isComparableScalar(field));
}

export function filterType(ctx: SchemaContext, typeName: string): GraphQLInputObjectType {
  const type = resourceType(ctx.model, typeName);
  const self: GraphQLInputObjectType = new GraphQLInputObjectType({
    name: `${type.name}Filter`,
    description: `Conditions on ${type.name} records. Several fields in one object are combined with AND.`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {
        and: { type: new GraphQLList(new GraphQLNonNull(self)), description: 'Every one of these filters holds.' },
        or: { type: new GraphQLList(new GraphQLNonNull(self)), description: 'At least one of these filters holds.' },
        not: { type: self, description: 'This filter does not hold.' },
      };
      for (const field of type.fields) {
        const filterName = operatorFilterName(field);
        if (filterName === undefined) continue;
        fields[field.name] = { type: ctx.operatorFilter(filterName), description: field.description };
        // The old name of a renamed field (`@renamed`) filters the same, deprecated.
        if (field.renamedFrom !== undefined) {
          fields[field.renamedFrom] = { type: ctx.operatorFilter(filterName), description: field.description, deprecationReason: renamedReason(field.name) };
        }
      }
      return fields;
    },
  });
  return self;
}

export function orderType(ctx: SchemaContext, typeName: string): GraphQLInputObjectType {
  const type = resourceType(ctx.model, typeName);
  const values: Record<string, { description: string | undefined; deprecationReason?: string }> = {};
  for (const field of type.fields) {
    if (!isSortable(field)) continue;
    values[field.name] = { description: field.description };
    if (field.renamedFrom !== undefined) values[field.renamedFrom] = { description: field.description, deprecationReason: renamedReason(field.name) };
  }
  const fieldEnum = new GraphQLEnumType({ name: `${type.name}OrderField`, description: `Fields ${type.plural} can be ordered by.`, values });
  return new GraphQLInputObjectType({
    name: `${type.name}Order`,
    description: `One sort key. Lists end with id as the last key (in the direction of the key before it), so their order is total and cursors are stable; ids order shorter first, then as text (1, 2, …, 10).`,
    fields: {
      field: { type: new GraphQLNonNull(fieldEnum) },
      direction: { type: OrderDirectionEnum, defaultValue: 'asc' },
    },
  });
}
