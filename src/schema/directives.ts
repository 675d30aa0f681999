import { buildASTSchema, type GraphQLDirective, type GraphQLSchema, parse, Source } from 'graphql';

/**
 * Diglot's schema language on top of GraphQL SDL: the directives and scalars
 * a user's schema may use, written as SDL so that graphql-js parses the
 * definitions and the loader checks every use against them (known directive,
 * allowed location, argument names and types). The GraphQL front-end can
 * print this prelude into documentation as it is.
 */
export const DIGLOT_PRELUDE_SDL = `
"An instant, as an RFC 3339 / ISO 8601 string in UTC: 2026-01-31T12:00:00.000Z."
scalar DateTime

"Any JSON value, stored as it is."
scalar JSON

"Who may keep a cached response: any cache (PUBLIC), or only the client (PRIVATE)."
enum CacheScope {
  PUBLIC
  PRIVATE
}

"No two records of the type hold the same value (a unique index)."
directive @unique on FIELD_DEFINITION

"""
On a field: its column is indexed, for filters and orders on it. On a type:
one index over several of its fields, in order, for lists filtered by the
first ones and ordered by the rest, such as a user's newest posts:
type Post @index(fields: ["author", "createdAt"]). Repeat it for more.
"""
directive @index(fields: [String!]) repeatable on FIELD_DEFINITION | OBJECT

"Clients may read the field but never write it."
directive @readonly on FIELD_DEFINITION

"""
Set once: the field may be given when the record is created and never
changed after (a write of another value is refused with 409
INPUT_IMMUTABLE_FIELD; writing the value it holds is fine, and PUT leaves it
as it is). For ownership and identity: Post.author, Order.customer.
"""
directive @immutable on FIELD_DEFINITION

"Set by the server to the time the record was created (a DateTime field)."
directive @createdAt on FIELD_DEFINITION

"Set by the server to the time the record was last written (a DateTime field)."
directive @updatedAt on FIELD_DEFINITION

"""
What a new record gets when the input leaves the field out: a constant,
@default(value: MEMBER), or a member of the principal who creates it,
@default(fromAuth: "id") (the caller's id, for author: User!; any claim by
its path, such as "org_id"). Exactly one of the two.
"""
directive @default(value: JSON, fromAuth: String) on FIELD_DEFINITION

"HTTP caching hint for the type's or the field's responses."
directive @cache(maxAge: Int!, scope: CacheScope = PUBLIC) on OBJECT | FIELD_DEFINITION

"A stored image, served resized to one of the allowed widths (the field's value is its URL)."
directive @image(sizes: [Int!]!) on FIELD_DEFINITION

"Names the field on the related type that is this relation seen from there."
directive @relation(inverse: String!) on FIELD_DEFINITION

"""
Who may read and write the records of a type, or one field of them. Each
argument is a rule over the principal (auth.id, auth.role, auth.<claim>) and
the record's own fields, to-one relations included:
@allow(read: "status == PUBLISHED || author == auth.id").
On a type: read, create, update, delete. On a field: read, write (on top of
the type's rules). Repeat it to allow more: the rules for one operation are
OR'ed. Once a schema has any @allow, an operation without a rule is the admin
role's alone; a schema without any is open to everyone. See docs/rules.md.
"""
directive @allow(read: String, create: String, update: String, delete: String, write: String) repeatable on OBJECT | FIELD_DEFINITION

"""
Marks the enum whose values are the principal's roles (auth.role in rules),
and the value that may do everything: enum Role @roles(admin: "ADMIN"). At
most one enum is marked.
"""
directive @roles(admin: String!) on ENUM

"""
Makes the type the one people sign in as (one type at most): sign-up, sign-in
and tokens under /auth and as GraphQL mutations. identifier names the unique
String field they sign in with; suspended, a field that, when set (not null,
not false), stops the account from signing in or refreshing; verified, a
Boolean field that email verification sets to true. The password is never a
field: the server keeps its hash apart.
"""
directive @account(identifier: String!, suspended: String, verified: String) on OBJECT

"""
As GraphQL's own @deprecated, also allowed on object types (a whole
resource can be deprecated). Clients that use a deprecated thing are told:
REST answers carry Deprecation, Sunset and Link headers, GraphQL answers
extensions.deprecations; uses are counted (diglot deprecations). since and
sunset are ISO dates (2027-06-30): when it was deprecated, when it is
expected to stop working.
"""
directive @deprecated(reason: String = "No longer supported", since: String, sunset: String) on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE | OBJECT
`;

/** The prelude as a schema, so directive definitions can be looked up and values coerced. */
export const DIGLOT_PRELUDE: GraphQLSchema = buildASTSchema(
  parse(new Source(DIGLOT_PRELUDE_SDL, 'diglot-prelude.graphql')),
);

/** Scalars every schema can use without declaring them. */
export const BUILT_IN_SCALARS = ['ID', 'String', 'Int', 'Float', 'Boolean', 'DateTime', 'JSON'] as const;

/** Type names the prelude or GraphQL itself owns; a user may not declare them. */
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([...BUILT_IN_SCALARS, 'CacheScope']);

/** Root types Diglot generates from the resources. */
export const ROOT_TYPE_NAMES: ReadonlySet<string> = new Set(['Query', 'Mutation', 'Subscription']);

/** Scalars a user may declare (`scalar DateTime`) for their editor's sake; the declaration is ignored. */
export const DECLARABLE_SCALARS: ReadonlySet<string> = new Set(['DateTime', 'JSON']);

export function getDiglotDirective(name: string): GraphQLDirective | undefined {
  return DIGLOT_PRELUDE.getDirective(name) ?? undefined;
}

export function diglotDirectiveNames(): string[] {
  return DIGLOT_PRELUDE.getDirectives().map((directive) => directive.name);
}
