import { toCamelCase } from '../util/naming.js';

/**
 * Names the server takes for itself beside the resources, so a schema may
 * not: a type that took one would stop the server at start-up (Fastify
 * refuses a route declared twice, graphql-js a type) or shadow the server's
 * own. test/server/reserved-names.test.ts holds these lists to what the
 * server really serves: its routes, GraphQL types and root fields.
 */

/** First path segments of the server's own routes, with what they are (a type's collection is `/<its path>`). */
export const RESERVED_PATHS: ReadonlyMap<string, string> = new Map([
  ['admin', 'the admin API'],
  ['assets', "the pages' scripts and styles"],
  ['auth', 'sign-up, sign-in and sessions'],
  ['console', 'the console'],
  ['docs', 'the API reference'],
  ['files', 'uploaded files'],
  ['graphql', 'GraphQL'],
  ['healthz', 'the health check'],
  ['me', 'the signed-in account'],
  ['readyz', 'the readiness check'],
  // `/events` is not here: a type may own it, and the change stream moves to `/_events` (rest/change-stream.ts).
  ['_events', 'the change stream'],
]);

/** GraphQL root fields the server adds, with what they are. */
export const RESERVED_ROOT_FIELDS: ReadonlyMap<string, string> = new Map([['me', 'the signed-in account']]);

/**
 * GraphQL types every generated schema may hold besides the resources' own
 * (the scalars and root types are refused as built-in, directives.ts).
 */
export const SERVER_TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ['OrderDirection', 'the direction of an orderBy'],
  ['Upload', 'a file sent with a mutation'],
  ['AuthSession', 'what signIn and signUp answer'],
  ...['ID', 'String', 'Int', 'Float', 'Boolean', 'DateTime', 'File'].map((scalar): [string, string] => [`${scalar}Filter`, `the filter of ${scalar} fields`]),
]);

/** The admin API's GraphQL namespace: its types are `Admin…` (AdminApiKey), its root fields `admin…` (adminApiKeys). */
export const ADMIN_PREFIX = 'Admin';

/** `AdminNote`, `ADMINNote`, `Admin_note`: in the admin API's namespace. `Admin` itself and `Administrator` are not. */
export function isAdminName(name: string): boolean {
  return (name.startsWith(ADMIN_PREFIX) && name.length > ADMIN_PREFIX.length && !/[a-z]/.test(name.charAt(ADMIN_PREFIX.length))) || /^admin[^a-z]/.test(toCamelCase(name));
}

/** Why a type or enum may not have this name (a sentence ending in "; choose another name."), or undefined when it may. */
export function serverTypeNameProblem(name: string): string | undefined {
  if (isAdminName(name)) return `"${name}" is in the admin API's namespace (its GraphQL types are named ${ADMIN_PREFIX}…, its fields admin…); choose another name.`;
  const what = SERVER_TYPE_NAMES.get(name);
  if (what !== undefined) return `"${name}" is a GraphQL type the server adds (${what}); choose another name.`;
  return undefined;
}
