import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from 'graphql';
import { deprecationOf, readMayBeRefused, type Model, type ResourceType, type ScalarField, type ScalarName } from '../../schema/model.js';
import type { FieldRole } from './roles.js';
import { DateTimeScalar, JsonScalar } from './scalars.js';
import { describe, resourceType, type SchemaContext } from './schema-context.js';

const SCALARS: Readonly<Record<ScalarName, GraphQLScalarType>> = {
  ID: GraphQLID,
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
  DateTime: DateTimeScalar,
  JSON: JsonScalar,
};

export const CURSOR_FIELD = '_cursor';

/**
 * The GraphQL fields of a model type, in declaration order, with what each
 * one means. A list relation is followed by its count (`posts`, then
 * `postsCount`) unless the type already has a field of that name; every
 * type ends with `_cursor`.
 */
export function fieldRolesOf(model: Model, type: ResourceType): ReadonlyMap<string, FieldRole> {
  const roles = new Map<string, FieldRole>();
  for (const field of type.fields) {
    switch (field.kind) {
      case 'scalar':
        roles.set(field.name, { kind: 'value', field: field.name });
        break;
      case 'file':
        roles.set(field.name, { kind: 'file', field: field.name });
        break;
      case 'toOne':
        roles.set(field.name, { kind: 'toOne', field: field.name, target: resourceType(model, field.target) });
        break;
      case 'toMany':
      case 'manyToMany': {
        roles.set(field.name, { kind: 'list', field: field.name, target: resourceType(model, field.target) });
        const count = `${field.name}Count`;
        if (!type.fieldsByName.has(count)) roles.set(count, { kind: 'count', field: field.name });
        break;
      }
    }
  }
  if (!type.fieldsByName.has(CURSOR_FIELD)) roles.set(CURSOR_FIELD, { kind: 'cursor' });
  return roles;
}

/** A scalar field's input type: `String`, `Role!`, `[String!]`… */
export function scalarInputType(ctx: SchemaContext, field: ScalarField, required: boolean): GraphQLInputType {
  const base = field.enum === undefined ? SCALARS[field.scalar] : ctx.enumType(field.enum);
  if (field.list) {
    const list = new GraphQLList(new GraphQLNonNull(base));
    return required ? new GraphQLNonNull(list) : list;
  }
  return required ? new GraphQLNonNull(base) : base;
}

function scalarOutputType(ctx: SchemaContext, field: ScalarField): GraphQLOutputType {
  const base = field.enum === undefined ? SCALARS[field.scalar] : ctx.enumType(field.enum);
  // A refused `email: String!` is null for that asker: it must not null out the whole record.
  const nullable = field.nullable || readMayBeRefused(field);
  if (field.list) {
    const list = new GraphQLList(new GraphQLNonNull(base));
    return nullable ? list : new GraphQLNonNull(list);
  }
  return nullable ? base : new GraphQLNonNull(base);
}

export function objectType(ctx: SchemaContext, typeName: string, roles: ReadonlyMap<string, FieldRole>): GraphQLObjectType {
  const type = resourceType(ctx.model, typeName);
  return new GraphQLObjectType({
    name: type.name,
    description: describe(type.description, deprecationOf(type)),
    // GraphQL has no deprecation of object types: tools reading the schema object find it here too.
    ...(type.deprecated === undefined ? {} : { extensions: { deprecation: deprecationOf(type) } }),
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
      for (const [name, role] of roles) {
        const field = role.kind === 'cursor' || role.kind === 'count' ? undefined : type.fieldsByName.get(role.field);
        const common = { description: field?.description, deprecationReason: field?.deprecated };
        switch (role.kind) {
          case 'value': {
            if (field?.kind !== 'scalar') break;
            fields[name] = { ...common, type: scalarOutputType(ctx, field) };
            break;
          }
          case 'file': {
            if (field?.kind !== 'file') break;
            const sizes = field.image.sizes.join(', ');
            fields[name] = {
              ...common,
              type: field.nullable || readMayBeRefused(field) ? GraphQLString : new GraphQLNonNull(GraphQLString),
              args: {
                size: {
                  type: GraphQLInt,
                  description: `Width in pixels: ${sizes}; other widths snap up to the next of these.`,
                  deprecationReason: field.sizeDeprecation?.reason,
                },
              },
            };
            break;
          }
          case 'toOne': {
            const target = ctx.objectType(role.target.name);
            const nullable = field?.kind === 'toOne' && (field.nullable || readMayBeRefused(field));
            fields[name] = { ...common, type: nullable ? target : new GraphQLNonNull(target) };
            break;
          }
          case 'list': {
            const list = new GraphQLList(new GraphQLNonNull(ctx.objectType(role.target.name)));
            fields[name] = {
              ...common,
              type: field !== undefined && readMayBeRefused(field) ? list : new GraphQLNonNull(list),
              args: listArguments(ctx, role.target),
            };
            break;
          }
          case 'count': {
            const relation = type.fieldsByName.get(role.field);
            const target = relation !== undefined && 'target' in relation ? relation.target : type.name;
            fields[name] = {
              type: new GraphQLNonNull(GraphQLInt),
              description: `The number of ${role.field} (matching the filter, when given).`,
              args: { filter: { type: ctx.filterType(target) } },
            };
            break;
          }
          case 'cursor':
            fields[name] = {
              type: GraphQLString,
              description: `This record's position in the list it was read in: pass it as after: or before: to that list. Null outside a list.`,
            };
            break;
        }
      }
      return fields;
    },
  });
}

/** `filter, orderBy, first, after, last, before` — the same for root lists and nested ones. */
export function listArguments(ctx: SchemaContext, target: ResourceType): GraphQLFieldConfigArgumentMap {
  return {
    filter: { type: ctx.filterType(target.name) },
    orderBy: {
      type: new GraphQLList(new GraphQLNonNull(ctx.orderType(target.name))),
      description: 'Sort keys, most significant first; id is always added last, in the direction of the key before it.',
    },
    first: { type: GraphQLInt, description: 'The first n records (after the `after` cursor, when given).' },
    after: { type: GraphQLString, description: 'A _cursor from this list: start after that record.' },
    last: { type: GraphQLInt, description: 'The last n records (before the `before` cursor, when given).' },
    before: { type: GraphQLString, description: 'A _cursor from this list: end before that record.' },
  };
}
