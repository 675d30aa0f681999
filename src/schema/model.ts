/**
 * The frozen model that every layer above reads: what the user's SDL says,
 * resolved once (relations paired, tables and columns named, directives
 * checked) so that no later stage ever looks at SDL again.
 *
 * Naming: a type `OrderItem` is the resource `orderItems` (REST path
 * `/order-items`, GraphQL list field `orderItems`) stored in table
 * `order_items`; a field `createdAt` is column `created_at`.
 */

import type { FieldRules, RoleSet, TypeRules } from './rules.js';

/** Scalars a column can hold. Enums are `String` columns with a check. */
export type ScalarName = 'ID' | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON';

export type CacheScope = 'PUBLIC' | 'PRIVATE';

/** The dates `@deprecated` may give: ISO calendar dates (`2027-06-30`), each optional. */
export interface DeprecationDates {
  /** Since when it is deprecated (the `Deprecation` header's date). */
  readonly since: string | undefined;
  /** When it is expected to stop working (the `Sunset` header). */
  readonly sunset: string | undefined;
}

/** Everything `@deprecated` says about one thing: why, and its dates. */
export interface Deprecation extends DeprecationDates {
  readonly reason: string;
}

export interface CacheHint {
  readonly maxAge: number;
  readonly scope: CacheScope;
}

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

interface FieldBase {
  readonly name: string;
  readonly description: string | undefined;
  /** Reason from `@deprecated`, or undefined when the field is current. */
  readonly deprecated: string | undefined;
  /** `@deprecated(since:, sunset:)`, when the field is deprecated (see `deprecationOf`). */
  readonly deprecatedDates?: DeprecationDates | undefined;
  readonly cache: CacheHint | undefined;
  readonly location: SourceLocation;
  /** `@allow(read:, write:)` on the field, on top of its type's rules; `{}` when none. */
  readonly rules: FieldRules;
}

/** A value stored in one column of the type's own table. */
export interface ScalarField extends FieldBase {
  readonly kind: 'scalar';
  readonly scalar: ScalarName;
  /** Name of the enum when the field's type is an enum (scalar is then 'String'). */
  readonly enum: string | undefined;
  /** `[String!]` and the like: stored as a JSON array in one column. */
  readonly list: boolean;
  readonly nullable: boolean;
  readonly column: string;
  readonly unique: boolean;
  readonly indexed: boolean;
  /** `@readonly`, `@createdAt`, `@updatedAt` and `id`: never accepted in input. */
  readonly readonly: boolean;
  readonly auto: 'id' | 'createdAt' | 'updatedAt' | undefined;
  /** From `@default(value:)`, already coerced to the field's type. */
  readonly default: { readonly value: unknown } | undefined;
  /**
   * From `@default(fromAuth:)`: the path of the principal member a new
   * record takes when the input leaves the field out (`["id"]`, `["role"]`,
   * a claim's `["org", "id"]`). Filled by the planner, which alone knows the
   * principal; `optionalOnCreate` does not count it.
   */
  readonly defaultFromAuth: readonly string[] | undefined;
  /** `@immutable`: set when the record is created, never changed after (an update may only repeat its value). */
  readonly immutable: boolean;
  /** True when input may omit it and storage still has a value: nullable, `@default(value:)` or server-managed. */
  readonly optionalOnCreate: boolean;
}

/** A stored file (`@image`): the column holds the content address. */
export interface FileField extends FieldBase {
  readonly kind: 'file';
  readonly nullable: boolean;
  readonly column: string;
  readonly image: { readonly sizes: readonly number[] };
  /** `@deprecated` on its `size` argument. */
  readonly sizeDeprecation?: Deprecation | undefined;
}

/** `author: User!` — this table holds the target's id. */
export interface ToOneRelation extends FieldBase {
  readonly kind: 'toOne';
  readonly target: string;
  readonly nullable: boolean;
  readonly column: string;
  /** The list field on the target that is this relation seen from there. */
  readonly inverse: string | undefined;
  readonly readonly: boolean;
  /** From `@default(fromAuth: "id")`: a new record points at the principal (as on ScalarField). */
  readonly defaultFromAuth: readonly string[] | undefined;
  /** `@immutable`, as on ScalarField. */
  readonly immutable: boolean;
}

/** `posts: [Post!]!` — the inverse of a to-one on the target. */
export interface ToManyRelation extends FieldBase {
  readonly kind: 'toMany';
  readonly target: string;
  /** The target's to-one field (and so its column) that points back here. */
  readonly inverse: string;
  readonly foreignKey: string;
}

/**
 * `followers: [User!]!` / `following: [User!]!` — through a join table that
 * the server owns. `side` says which join column holds this record's id: for
 * the field that owns the table (declared first), `source`.
 */
export interface ManyToManyRelation extends FieldBase {
  readonly kind: 'manyToMany';
  readonly target: string;
  readonly inverse: string | undefined;
  readonly joinTable: string;
  /** Join column holding the id of the record this field is read from. */
  readonly ownColumn: string;
  /** Join column holding the id of the related record. */
  readonly otherColumn: string;
}

export type Field = ScalarField | FileField | ToOneRelation | ToManyRelation | ManyToManyRelation;
export type RelationField = ToOneRelation | ToManyRelation | ManyToManyRelation;

export interface ResourceType {
  readonly name: string;
  readonly description: string | undefined;
  /** camelCase plural: GraphQL list field and the basis of the REST path. */
  readonly plural: string;
  /** REST collection path segment, kebab-case plural: `users`, `order-items`. */
  readonly path: string;
  readonly table: string;
  readonly fields: readonly Field[];
  readonly fieldsByName: ReadonlyMap<string, Field>;
  readonly cache: CacheHint | undefined;
  readonly deprecated: string | undefined;
  /** `@deprecated(since:, sunset:)` on the type, when it is deprecated. */
  readonly deprecatedDates?: DeprecationDates | undefined;
  readonly location: SourceLocation;
  /** Indexes over several fields (`@index(fields:)` on the type): field names, each stored in a column. */
  readonly indexes: readonly (readonly string[])[];
  /** `@allow` on the type, several uses for one operation OR'ed; `{}` when none. */
  readonly rules: TypeRules;
}

export interface EnumType {
  readonly name: string;
  readonly values: readonly string[];
  readonly description: string | undefined;
  /** The values marked `@deprecated`, by name. */
  readonly deprecatedValues?: ReadonlyMap<string, Deprecation> | undefined;
}

export interface JoinTable {
  readonly name: string;
  /** Both columns reference `id` of these types. */
  readonly sourceColumn: string;
  readonly sourceType: string;
  readonly targetColumn: string;
  readonly targetType: string;
}

/**
 * The type marked `@account`: the one people sign in as. Its password is no
 * field of it; the server keeps the hash in a table of its own.
 */
export interface AccountType {
  readonly type: string;
  /** The unique String field people sign in with (`email`). */
  readonly identifier: string;
  /** The field holding the account's role (an enum field of the `@roles` enum), whose value goes in its tokens' `role` claim. */
  readonly role: string | undefined;
  /** A field that, when set (not null, not false), suspends the account. */
  readonly suspended: string | undefined;
  /** A Boolean field that email verification sets to true. */
  readonly verified: string | undefined;
}

export interface Model {
  readonly types: readonly ResourceType[];
  readonly typesByName: ReadonlyMap<string, ResourceType>;
  readonly enums: ReadonlyMap<string, EnumType>;
  readonly joinTables: readonly JoinTable[];
  /** sha256 of the normalized SDL: part of every ETag, so a schema change invalidates caches. */
  readonly hash: string;
  /** The enum marked `@roles`, whose values `auth.role` takes. */
  readonly roles: RoleSet | undefined;
  /**
   * Whether any type or field has an `@allow`. Without one the schema is
   * open to everyone; with one, an operation without a rule is the admin
   * role's alone.
   */
  readonly hasRules: boolean;
  /** The type marked `@account`, if any. */
  readonly account: AccountType | undefined;
}

/** What `@deprecated` says of a field or type, or undefined when it is current. */
export function deprecationOf(item: { readonly deprecated: string | undefined; readonly deprecatedDates?: DeprecationDates | undefined }): Deprecation | undefined {
  if (item.deprecated === undefined) return undefined;
  return { reason: item.deprecated, since: item.deprecatedDates?.since, sunset: item.deprecatedDates?.sunset };
}

export function isRelation(field: Field): field is RelationField {
  return field.kind === 'toOne' || field.kind === 'toMany' || field.kind === 'manyToMany';
}

/**
 * Whether a write's input may set the field: not server-managed, or
 * `@readonly` with a `write` rule that names who may (docs/rules.md:
 * `suspendedReason: String @readonly @allow(write: "auth.role == MODERATOR")`).
 * The id and the timestamps the server keeps are never input.
 */
export function takesInput(field: ScalarField | ToOneRelation): boolean {
  if (!field.readonly) return true;
  const managed = field.kind === 'scalar' && field.auto !== undefined;
  return !managed && field.rules.write !== undefined;
}

/**
 * Whether the field's read rule can refuse someone (anything but none or
 * `"true"`): then some askers get null for it (masked on rows they may not
 * see, or withheld in GraphQL), so the documents that describe answers
 * (GraphQL's output types, OpenAPI's records) say it may be null.
 */
export function readMayBeRefused(field: Field): boolean {
  const rule = field.rules.read;
  return rule !== undefined && !(rule.expr.kind === 'const' && rule.expr.value);
}

export function isListRelation(field: Field): field is ToManyRelation | ManyToManyRelation {
  return field.kind === 'toMany' || field.kind === 'manyToMany';
}
