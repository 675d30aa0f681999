import { randomUUID } from 'node:crypto';
import { getLocation, GraphQLError, type ASTNode } from 'graphql';
import { isApiError, type ApiError } from '../../errors/api-error.js';
import { isErrorCode } from '../../errors/registry.js';

/**
 * One entry of a GraphQL response's `errors`, with `extensions.code` from
 * the same registry REST's problem+json uses.
 */
export interface FormattedError {
  readonly message: string;
  readonly locations?: readonly { readonly line: number; readonly column: number }[];
  readonly path?: readonly (string | number)[];
  readonly extensions: Readonly<Record<string, unknown>> & { readonly code: string };
}

/** Where unknown failures go: their stack is logged, never sent. */
export interface ErrorLog {
  error(details: object, message: string): void;
}

export interface FormatOptions {
  readonly hideSuggestions: boolean;
  readonly exposeInternals: boolean;
  readonly log: ErrorLog;
}

/**
 * Any error to its response entry. ApiErrors keep their code, detail and
 * per-item `errors`; GraphQL errors keep the code they were tagged with;
 * anything else is INTERNAL with an error id that is also in the log.
 */
export function formatError(raw: unknown, options: FormatOptions, at?: { readonly nodes?: readonly ASTNode[]; readonly path?: readonly (string | number)[] }): FormattedError {
  const error = unwrap(raw);
  const nodes = at?.nodes;
  const locations = nodes === undefined ? (error instanceof GraphQLError ? error.locations : undefined) : locationsOf(nodes);
  const path = at?.path ?? (error instanceof GraphQLError ? error.path : undefined);
  const where = { ...(locations === undefined || locations.length === 0 ? {} : { locations }), ...(path === undefined ? {} : { path }) };
  if (isApiError(error)) {
    if (error.code === 'INTERNAL') return internal(error, options, where);
    return { message: error.message, ...where, extensions: apiExtensions(error) };
  }
  if (error instanceof GraphQLError) {
    const code = error.extensions['code'];
    const message = options.hideSuggestions ? withoutSuggestions(error.message) : error.message;
    return {
      message,
      ...where,
      extensions: { ...error.extensions, code: typeof code === 'string' && isErrorCode(code) ? code : 'GRAPHQL_VALIDATION_FAILED' },
    };
  }
  return internal(error, options, where);
}

function apiExtensions(error: ApiError): FormattedError['extensions'] {
  return { ...error.extensions, code: error.code, ...(error.errors.length > 0 ? { errors: error.errors } : {}) };
}

function internal(raw: unknown, options: FormatOptions, where: object): FormattedError {
  const errorId = randomUUID();
  options.log.error({ err: raw, errorId }, 'internal error in a GraphQL operation');
  const message =
    options.exposeInternals && raw instanceof Error ? raw.message : `Something went wrong on our side; quote error id ${errorId}`;
  return { message, ...where, extensions: { code: 'INTERNAL', errorId } };
}

/** A GraphQLError wrapping an ApiError (graphql-js wraps what resolvers and scalars throw) is the ApiError. */
function unwrap(error: unknown): unknown {
  if (error instanceof GraphQLError && error.originalError !== undefined && isApiError(error.originalError)) return error.originalError;
  return error;
}

function locationsOf(nodes: readonly ASTNode[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  for (const node of nodes) {
    if (node.loc === undefined) continue;
    const location = getLocation(node.loc.source, node.loc.start);
    out.push({ line: location.line, column: location.column });
  }
  return out;
}

/** graphql-js appends `Did you mean "x"?` to many messages; in production it helps guess the schema. */
export function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean .+\?$/s, '');
}
