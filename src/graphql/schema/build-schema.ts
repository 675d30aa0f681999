import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLInputObjectType,
  type GraphQLNamedType,
} from 'graphql';
import type { ManyToManyRelation, Model, ResourceType } from '../../schema/model.js';
import { renamedReason, typeAlias } from '../../schema/renamed.js';
import { toCamelCase, toPascalCase } from '../../util/naming.js';
import { addAccountFields } from './account-fields.js';
import { addAdminFields } from './admin-fields.js';
import { filterType, operatorFilterType, orderType } from './filter-types.js';
import { mutationInputType } from './input-types.js';
import { fieldRolesOf, listArguments, objectType } from './object-types.js';
import type { FieldRole, GeneratedSchema, InputRole, RootRole } from './roles.js';
import { memo, type SchemaContext } from './schema-context.js';

/**
 * The GraphQL schema of a model (graphql-js type objects, no resolvers):
 *
 *   Query     user(id) · users(filter, orderBy, first, after, last, before) · usersCount(filter)
 *   Subscription  the Query fields again, as live queries (sent now and on every change)
 *             userCreated · userUpdated · userDeleted (filter, after): change events, the record as the subscriber may read it
 *   Mutation  createUser(input) · updateUser(id, input) · deleteUser(id)
 *             addUserFollowing(id, targetId) · removeUserFollowing(id, targetId)
 *
 * Lists are plain lists (not Relay connections); each record's `_cursor`
 * pages them. The roles returned beside the schema say what every field
 * means in model terms, which is all the executor needs.
 */
export function buildGraphqlSchema(model: Model): GeneratedSchema {
  const objectRoles = new Map<string, ReadonlyMap<string, FieldRole>>(model.types.map((type) => [type.name, fieldRolesOf(model, type)]));
  const ctx: SchemaContext = {
    model,
    enumType: memo((name) => enumType(model, name)),
    objectType: memo((name) => objectType(ctx, name, objectRoles.get(name) ?? new Map())),
    filterType: memo((name) => filterType(ctx, name)),
    orderType: memo((name) => orderType(ctx, name)),
    operatorFilter: memo((name) => operatorFilterType(ctx, name)),
  };

  const queryRoles = new Map<string, RootRole>();
  const mutationRoles = new Map<string, RootRole>();
  const inputRoles = new Map<string, InputRole>();
  const queryFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  const eventRoles = new Map<string, RootRole>();
  const eventFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  const mutationFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  const id = { type: new GraphQLNonNull(GraphQLID) };
  const eventCursor = {
    type: GraphQLString,
    description: 'Resume after this event: the `extensions.event.cursor` of a message this field sent. The events since are sent first, while they are kept.',
  };

  // The account type's create input, which signUp takes too (one type per name in a schema).
  let accountInput: GraphQLInputObjectType | undefined;
  for (const type of model.types) {
    const object = ctx.objectType(type.name);
    const filter = { type: ctx.filterType(type.name) };
    inputRoles.set(`${type.name}Filter`, { kind: 'filter' });
    inputRoles.set(`${type.name}Order`, { kind: 'order' });
    const one = toCamelCase(type.name);
    queryFields[one] = { type: object, args: { id }, description: `One ${type.name} by id; null when there is none.` };
    queryRoles.set(one, { kind: 'one', type });
    queryFields[type.plural] = { type: listOf(object), args: listArguments(ctx, type), description: describeList(type) };
    queryRoles.set(type.plural, { kind: 'list', type });
    const count = `${type.plural}Count`;
    queryFields[count] = { type: new GraphQLNonNull(GraphQLInt), args: { filter }, description: `The number of ${type.plural} matching the filter.` };
    queryRoles.set(count, { kind: 'count', type });
    addRenamedRoots(type, queryFields, queryRoles);
    for (const kind of ['created', 'updated', 'deleted'] as const) {
      const name = `${one}${toPascalCase(kind)}`;
      const which =
        kind === 'deleted'
          ? `Each ${type.name} deleted from now on that matched the filter and that the subscriber could read, as it was: its own fields and to-one relations.`
          : `Each ${type.name} ${kind} from now on that matches the filter and that the subscriber may read, as it is after the change.`;
      eventFields[name] = { type: new GraphQLNonNull(object), args: { filter, after: eventCursor }, description: which };
      eventRoles.set(name, { kind, type });
    }
    addRenamedEvents(type, eventFields, eventRoles);

    const createInput = mutationInputType(ctx, type, 'create');
    const updateInput = mutationInputType(ctx, type, 'update');
    if (type.name === model.account?.type) accountInput = createInput;
    mutationFields[`create${type.name}`] = {
      type: new GraphQLNonNull(object),
      args: createInput === undefined ? {} : { input: { type: new GraphQLNonNull(createInput) } },
      description: `Creates a ${type.name} and returns it.`,
    };
    mutationRoles.set(`create${type.name}`, { kind: 'create', type });
    if (createInput !== undefined) inputRoles.set(createInput.name, { kind: 'input', type });
    if (updateInput !== undefined) {
      mutationFields[`update${type.name}`] = {
        type: new GraphQLNonNull(object),
        args: { id, input: { type: new GraphQLNonNull(updateInput) } },
        description: `Changes the given fields of a ${type.name} and returns it.`,
      };
      mutationRoles.set(`update${type.name}`, { kind: 'update', type });
      inputRoles.set(updateInput.name, { kind: 'input', type });
    }
    mutationFields[`delete${type.name}`] = { type: object, args: { id }, description: `Deletes a ${type.name} and returns it as it was.` };
    mutationRoles.set(`delete${type.name}`, { kind: 'delete', type });
    addRenamedMutations(type, mutationFields, mutationRoles);
    for (const field of type.fields) {
      if (field.kind !== 'manyToMany') continue;
      const suffix = `${type.name}${toPascalCase(field.name)}`;
      const args = { id, targetId: id };
      mutationFields[`add${suffix}`] = { type: new GraphQLNonNull(object), args, description: `Adds a ${field.target} to ${type.name}.${field.name}; adding one already there changes nothing.` };
      mutationRoles.set(`add${suffix}`, { kind: 'connect', type, field });
      mutationFields[`remove${suffix}`] = { type: new GraphQLNonNull(object), args, description: `Removes a ${field.target} from ${type.name}.${field.name}; removing one not there changes nothing.` };
      mutationRoles.set(`remove${suffix}`, { kind: 'disconnect', type, field });
      addRenamedLinks(type, field, mutationFields, mutationRoles);
    }
  }

  const account = model.account === undefined ? undefined : model.typesByName.get(model.account.type);
  if (account !== undefined && model.account !== undefined) {
    addAccountFields(ctx, account, model.account.identifier, accountInput, { fields: queryFields, roles: queryRoles }, { fields: mutationFields, roles: mutationRoles });
  }

  if (model.types.some((type) => type.fields.some((field) => field.kind === 'file'))) inputRoles.set('Upload', { kind: 'upload' });

  // Added to Query and Mutation only: the Subscription type's live queries are the data's.
  const adminQueryFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  addAdminFields(model, { fields: adminQueryFields, roles: queryRoles }, { fields: mutationFields, roles: mutationRoles });

  // Every type is reachable from a root field, but list them so the order of
  // types in introspection follows the model.
  const types: GraphQLNamedType[] = model.types.map((type) => ctx.objectType(type.name));
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ...queryFields, ...adminQueryFields } }),
    mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutationFields }),
    subscription: new GraphQLObjectType({ name: 'Subscription', fields: { ...liveFields(queryFields), ...eventFields }, description: 'Live queries (each Query field, now and again every time its answer changes) and change events.' }),
    types,
  });
  const subscriptionRoles = new Map([...[...queryRoles].filter(([, role]) => role.kind !== 'admin'), ...eventRoles]);
  return Object.freeze({ schema, query: queryRoles, mutation: mutationRoles, subscription: subscriptionRoles, objects: objectRoles, inputs: inputRoles });
}

/**
 * A renamed type's old root fields (`member(id:)`, `members`,
 * `membersCount`) stay, deprecated, as copies of the new ones whose role
 * names the type by its old name: the planner resolves it and reports the use.
 */
function addRenamedRoots(type: ResourceType, fields: GraphQLFieldConfigMap<unknown, unknown>, roles: Map<string, RootRole>): void {
  const alias = typeAlias(type);
  if (alias === undefined) return;
  const deprecationReason = renamedReason(type.name);
  const pairs: [string, string, 'one' | 'list' | 'count'][] = [
    [toCamelCase(type.name), toCamelCase(alias.name), 'one'],
    [type.plural, alias.plural, 'list'],
    [`${type.plural}Count`, `${alias.plural}Count`, 'count'],
  ];
  for (const [current, old, kind] of pairs) {
    const config = fields[current];
    if (config === undefined || fields[old] !== undefined) continue;
    fields[old] = { ...config, deprecationReason };
    roles.set(old, { kind, type: alias });
  }
}

/** A renamed type's old `create…`, `update…` and `delete…` mutations, deprecated, as `addRenamedRoots` keeps its old root fields. */
function addRenamedMutations(type: ResourceType, fields: GraphQLFieldConfigMap<unknown, unknown>, roles: Map<string, RootRole>): void {
  const alias = typeAlias(type);
  if (alias === undefined) return;
  const deprecationReason = renamedReason(type.name);
  for (const kind of ['create', 'update', 'delete'] as const) {
    const config = fields[`${kind}${type.name}`];
    const old = `${kind}${alias.name}`;
    if (config === undefined || fields[old] !== undefined) continue;
    fields[old] = { ...config, deprecationReason };
    roles.set(old, { kind, type: alias });
  }
}

/** A renamed type's old change-event fields (`memberCreated`, …), deprecated: they hear the events published under the new name. */
function addRenamedEvents(type: ResourceType, fields: GraphQLFieldConfigMap<unknown, unknown>, roles: Map<string, RootRole>): void {
  const alias = typeAlias(type);
  if (alias === undefined) return;
  for (const kind of ['created', 'updated', 'deleted'] as const) {
    const config = fields[`${toCamelCase(type.name)}${toPascalCase(kind)}`];
    const old = `${toCamelCase(alias.name)}${toPascalCase(kind)}`;
    if (config === undefined || fields[old] !== undefined) continue;
    fields[old] = { ...config, deprecationReason: renamedReason(type.name) };
    roles.set(old, { kind, type: alias });
  }
}

/**
 * The old `add…`/`remove…` mutations of a many-to-many list whose type or
 * list was renamed (`addMemberFollowers`), deprecated: their role names the
 * type and the list by the names used, which the planner resolves and reports.
 */
function addRenamedLinks(type: ResourceType, field: ManyToManyRelation, fields: GraphQLFieldConfigMap<unknown, unknown>, roles: Map<string, RootRole>): void {
  const alias = typeAlias(type);
  const typeNames = [{ named: type, reason: undefined }, ...(alias === undefined ? [] : [{ named: alias, reason: renamedReason(type.name) }])];
  const fieldNames = [{ name: field.name, reason: undefined }, ...(field.renamedFrom === undefined ? [] : [{ name: field.renamedFrom, reason: renamedReason(field.name) }])];
  for (const { named, reason: typeReason } of typeNames) {
    for (const { name, reason: fieldReason } of fieldNames) {
      const reasons = [typeReason, fieldReason].filter((reason) => reason !== undefined);
      if (reasons.length === 0) continue;
      const oldField: ManyToManyRelation = Object.freeze({ ...field, name });
      for (const [prefix, kind] of [['add', 'connect'], ['remove', 'disconnect']] as const) {
        const config = fields[`${prefix}${type.name}${toPascalCase(field.name)}`];
        const old = `${prefix}${named.name}${toPascalCase(name)}`;
        if (config === undefined || fields[old] !== undefined) continue;
        fields[old] = { ...config, deprecationReason: reasons.join('; ') };
        roles.set(old, { kind, type: named, field: oldField });
      }
    }
  }
}

/** The Query fields as Subscription fields (the same types and arguments; graphql-js wants fresh configs per type). */
function liveFields(queryFields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> {
  return Object.fromEntries(Object.entries(queryFields).map(([name, config]) => [name, { ...config }]));
}

function listOf(object: GraphQLObjectType): GraphQLNonNull<GraphQLList<GraphQLNonNull<GraphQLObjectType>>> {
  return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(object)));
}

function describeList(type: ResourceType): string {
  return `${type.plural}: filtered, ordered and paged with first/after or last/before (cursors come from each record's _cursor).`;
}

function enumType(model: Model, name: string): GraphQLEnumType {
  const declared = model.enums.get(name);
  if (declared === undefined) throw new Error(`The model has no enum ${name}`);
  return new GraphQLEnumType({
    name,
    description: declared.description,
    values: Object.fromEntries(declared.values.map((value) => [value, { value, deprecationReason: declared.deprecatedValues?.get(value)?.reason }])),
  });
}
