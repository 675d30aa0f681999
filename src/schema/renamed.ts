import { pluralize, toCamelCase, toKebabCase, toSnakeCase } from '../util/naming.js';
import type { Field, Model, ResourceType } from './model.js';

/**
 * `@renamed(from:)` in one place: the names a type or a field had before,
 * derived the way the current ones are, and the lookup every front-end and
 * the migrator pass through, so an old name means the same thing in a REST
 * query, a GraphQL selection and a database column.
 */

/** The names a resource type derives from its own: GraphQL root fields, REST path, table. */
export interface TypeNames {
  /** The single-record root field: `orderItem`. */
  readonly one: string;
  /** The collection root field: `orderItems`. */
  readonly plural: string;
  /** The REST path segment: `order-items`. */
  readonly path: string;
  readonly table: string;
}

export function typeNames(name: string): TypeNames {
  const plural = pluralize(toCamelCase(name));
  return { one: toCamelCase(name), plural, path: toKebabCase(plural), table: toSnakeCase(plural) };
}

/** The column a field of this kind and name is stored in: `createdAt` → `created_at`, to-one `author` → `author_id`. */
export function columnName(name: string, kind: 'stored' | 'toOne'): string {
  return kind === 'toOne' ? `${toSnakeCase(name)}_id` : toSnakeCase(name);
}

/** The field a name stands for, `alias` set when it is an old name kept by `@renamed(from:)`. */
export interface ResolvedField {
  readonly field: Field;
  readonly alias: string | undefined;
}

/** A field by its name or by the name it had before `@renamed(from:)`; undefined when neither. */
export function resolveField(type: ResourceType, name: string): ResolvedField | undefined {
  const field = type.fieldsByName.get(name);
  if (field !== undefined) return { field, alias: undefined };
  const renamed = type.aliases.get(name);
  return renamed === undefined ? undefined : { field: renamed, alias: name };
}

/** The deprecation reason an old name is served with. */
export function renamedReason(current: string): string {
  return `Renamed to ${current}`;
}

/** The fields still answering to an old name, with it. */
export function fieldAliases(type: ResourceType): readonly { readonly alias: string; readonly field: Field }[] {
  return [...type.aliases].map(([alias, field]) => ({ alias, field }));
}

/** A resource type by its name or by the name it had before `@renamed(from:)`. */
export function resolveType(model: Model, name: string): { readonly type: ResourceType; readonly alias: string | undefined } | undefined {
  const type = model.typesByName.get(name);
  if (type !== undefined) return { type, alias: undefined };
  const renamed = model.types.find((candidate) => candidate.renamedFrom === name);
  return renamed === undefined ? undefined : { type: renamed, alias: name };
}

/**
 * The type as its old name (`@renamed(from:)`) shows it to clients: the old
 * name, plural and path over the same fields. A plan built for this name
 * resolves it to the type and reports the old name's use; both front-ends
 * serve the old routes and root fields through it.
 */
export function typeAlias(type: ResourceType): ResourceType | undefined {
  if (type.renamedFrom === undefined) return undefined;
  const old = typeNames(type.renamedFrom);
  return Object.freeze({ ...type, name: type.renamedFrom, plural: old.plural, path: old.path });
}
