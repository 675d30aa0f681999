import { ERROR_REGISTRY, retryAfterOf, type ErrorCode } from '../../errors/registry.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { ComponentNames } from './component-names.js';
import type { ForbiddenCode } from './forbidden-codes.js';
import { ref, type Header, type JsonSchema, type Response } from './openapi-types.js';

/** RFC 9457 problem details as `problem.ts` renders them, with Diglot's `code` and per-item `errors`. */
export function problemSchemas(names: ComponentNames): Record<string, JsonSchema> {
  const codes = Object.keys(ERROR_REGISTRY) as ErrorCode[];
  return {
    [names.errorCode]: {
      type: 'string',
      enum: codes,
      description: 'The stable code of an error. The same codes appear in GraphQL as `errors[].extensions.code`.',
    },
    [names.problem]: {
      type: 'object',
      description: 'An error, as RFC 9457 problem details. Members beyond these carry machine-readable specifics (for example `allow`, `suggestion`, `errorId`).',
      properties: {
        type: { type: 'string', format: 'uri', description: 'Identifies the kind of problem: `urn:diglot:problem:<code>`.' },
        title: { type: 'string', description: 'A short, fixed summary of the kind of problem.' },
        status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' },
        detail: { type: 'string', description: 'What went wrong this time, for humans.' },
        code: ref('schemas', names.errorCode),
        // Not `format: uri-reference`: the server echoes the request target as received, and
        // `filter[a][b]=…` holds brackets that RFC 3986 only allows percent-encoded.
        instance: { type: 'string', description: 'The request this problem is about: its path and query, as received.' },
        errors: {
          type: 'array',
          description: 'Every problem found in the input, when there are several.',
          items: ref('schemas', names.problemItem),
        },
      },
      required: ['type', 'title', 'status', 'code'],
    },
    [names.problemItem]: {
      type: 'object',
      description: 'One problem in a request body.',
      properties: {
        pointer: { type: 'string', description: 'Where: an RFC 6901 JSON pointer into the body.' },
        code: ref('schemas', names.errorCode),
        detail: { type: 'string', description: 'What is wrong there.' },
      },
      required: ['pointer', 'code', 'detail'],
      additionalProperties: false,
    },
  };
}

/** The error responses by name, one per status, each listing the codes it can carry (403 is per operation: see `forbiddenResponse`). */
export const ERROR_RESPONSES = {
  BadRequest: 400,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  ContentTooLarge: 413,
  UnsupportedMediaType: 415,
  PreconditionRequired: 428,
} as const;

export type ErrorResponseName = keyof typeof ERROR_RESPONSES;

const ERROR_SUMMARIES: Record<ErrorResponseName, string> = {
  BadRequest: 'The request is malformed: an unknown field, parameter or operator, a wrong type, a missing required field, or a server-managed field in the body.',
  NotFound: 'No record has this id (or no route has this path).',
  Conflict:
    'The write conflicts with other data: a unique value already taken, a related record (by id) that does not exist, or, for a delete, records that point at this one (`@relation(onDelete: RESTRICT)`, the default) or a cascade past the server\'s limit.',
  PreconditionFailed: 'If-Match does not match the current ETag of the record: it changed since it was read, and nothing was written.',
  ContentTooLarge: 'The request body, or a file in it, is larger than the server accepts.',
  UnsupportedMediaType: 'The body is not in a content type this operation accepts, or an uploaded file is not an image type it accepts.',
  PreconditionRequired: 'This server requires If-Match on writes (RFC 6585), so that no update is ever lost.',
};

/** What each 403 code means on an operation of this kind. */
function forbiddenSentence(code: ForbiddenCode, kind: 'read' | 'write'): string {
  switch (code) {
    case 'CROSS_SITE_REQUEST_REFUSED':
      return (
        'A write in a form\'s content type (multipart/form-data, application/x-www-form-urlencoded, text/plain) or with no body came from a page of another site (Origin, Sec-Fetch-Site): ' +
        'send it from this origin, as JSON, or with a non-empty GraphQL-Require-Preflight header.'
      );
    case 'FORBIDDEN':
      return 'The schema\'s permission rules do not let this caller do this to this record: send the credential of someone they do let.';
    case 'RELATION_CASCADE_FORBIDDEN':
      return 'The delete would also delete records (`@relation(onDelete: CASCADE)`) that the rules do not let this caller delete, or see: nothing was deleted.';
    case 'FIELD_FORBIDDEN':
      return kind === 'read'
        ? 'The request names a field the schema\'s permission rules do not let this caller read (in `fields`, `include`, a filter or a sort); a field that is not named is left out of the response instead.'
        : 'The body sets a field the schema\'s permission rules do not let this caller write.';
  }
}

/**
 * The 403 of one operation, inline: which codes it can carry depends on
 * the operation (only writes are refused cross-site) and on the rules of
 * its type, so no one shared response would be true of every operation.
 */
export function forbiddenResponse(names: ComponentNames, codes: readonly ForbiddenCode[], kind: 'read' | 'write'): Response {
  return {
    description: `${codes.map((code) => forbiddenSentence(code, kind)).join(' ')} Codes: ${codes.join(', ')}.`,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', names.problem) } },
  };
}

/** `requireIfMatch`: whether the server can answer 428 at all (only then is its response described). */
export function sharedResponses(names: ComponentNames, requireIfMatch: boolean): Record<string, Response> {
  const problem = { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', names.problem) } };
  const responses: Record<string, Response> = {};
  for (const [name, status] of Object.entries(ERROR_RESPONSES) as [ErrorResponseName, number][]) {
    if (name === 'PreconditionRequired' && !requireIfMatch) continue;
    responses[name] = { description: `${ERROR_SUMMARIES[name]} Codes: ${codesFor(status).join(', ')}.`, content: problem };
  }
  responses['Unauthenticated'] = {
    description:
      'The credential in `Authorization` was refused: a token or key that is malformed, expired, revoked, badly signed or unknown here, or a scheme other than Bearer. ' +
      `A request without \`Authorization\` is never refused this way: it is served as anonymous. Codes: ${codesFor(401).join(', ')}.`,
    headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
    content: problem,
  };
  responses['NotModified'] = {
    description: 'The representation named in If-None-Match is still current: no body. The caching headers are those of a 200.',
    headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') },
  };
  responses['TooManyRequests'] = {
    description:
      'The caller\'s budget for this window is spent (a read costs the rows its plan may read, a write 10 points): nothing ran. ' +
      `Try again after \`Retry-After\` seconds, when the window ends. Codes: ${codesFor(429).join(', ')}.`,
    headers: {
      'Retry-After': { description: 'Seconds until the window ends.', required: true, schema: { type: 'integer', minimum: 1 } },
      RateLimit: ref('headers', 'RateLimit'),
      'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
    },
    content: problem,
  };
  responses['InternalError'] = {
    description: `Something failed on the server side (${codesFor(500).join(', ')}): the problem carries an \`errorId\` to quote; the details are in the server's log.`,
    content: problem,
  };
  responses['ServiceUnavailable'] = {
    description:
      'Something the request depends on did not answer, or not in time (the database, or the key set that verifies tokens), or the query ran past its time budget. ' +
      `Retrying after \`Retry-After\` seconds may succeed. Codes: ${codesFor(503).join(', ')}.`,
    headers: { 'Retry-After': ref('headers', 'Retry-After') },
    content: problem,
  };
  return responses;
}

/** Codes only the accounts routes (`/auth/…`) answer, never a resource operation. */
const ACCOUNT_FLOW_CODES: ReadonlySet<string> = new Set(['INVALID_CREDENTIALS', 'WEAK_PASSWORD', 'ACCOUNT_SUSPENDED', 'REFRESH_TOKEN_INVALID', 'REFRESH_TOKEN_REUSED', 'ONE_TIME_TOKEN_INVALID']);

function codesFor(status: number): ErrorCode[] {
  return (Object.keys(ERROR_REGISTRY) as ErrorCode[]).filter(
    (code) =>
      ERROR_REGISTRY[code].status === status &&
      !code.startsWith('GRAPHQL_') &&
      code !== 'PERSISTED_QUERY_NOT_FOUND' &&
      code !== 'SUBSCRIPTION_UNSUPPORTED' &&
      code !== 'SCHEMA_INVALID' &&
      code !== 'MIGRATION_DESTRUCTIVE' &&
      !ACCOUNT_FLOW_CODES.has(code),
  );
}

export function sharedHeaders(): Record<string, Header> {
  return {
    ETag: {
      description: 'Strong validator of this representation (RFC 9110 §8.8.3): send it back in If-None-Match to revalidate, or in If-Match to write only if nothing changed.',
      required: true,
      schema: { type: 'string' },
    },
    'Cache-Control': {
      description: 'From the schema\'s `@cache` hints: `public, max-age=N, must-revalidate`, or `no-cache` (store, but revalidate every use) without a hint; `private` for per-user data.',
      required: true,
      schema: { type: 'string' },
    },
    Location: { description: 'The URL of the created record.', required: true, schema: { type: 'string', format: 'uri-reference' } },
    Link: {
      description: 'RFC 8288 links to the first, next and previous pages (`rel="first"`, `rel="next"`, `rel="prev"`).',
      required: true,
      schema: { type: 'string' },
    },
    'WWW-Authenticate': {
      description:
        'The RFC 6750 challenge: `Bearer error="invalid_token", error_description="…"` when a Bearer credential was refused (the description says why), ' +
        'a bare `Bearer` when the header used another scheme.',
      required: true,
      schema: { type: 'string' },
    },
    RateLimit: {
      description:
        'What is left of the caller\'s budget (draft-ietf-httpapi-ratelimit-headers): `"<policy>";r=<points left>;t=<seconds until the window resets>`. ' +
        'Sent where a budget applies and the request was charged.',
      schema: { type: 'string' },
    },
    'RateLimit-Policy': {
      description: 'The caller\'s budget (draft-ietf-httpapi-ratelimit-headers): `"<policy>";q=<points>;w=<window in seconds>`.',
      schema: { type: 'string' },
    },
    'Retry-After': {
      description: `Seconds to wait before trying again (RFC 9110 §10.2.3), by code: ${retryAfterSeconds()}.`,
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  };
}

/** `DATABASE_UNAVAILABLE` 5, … from the registry, so the document cannot disagree with what is sent. */
function retryAfterSeconds(): string {
  return codesFor(503)
    .flatMap((code) => {
      const seconds = retryAfterOf(code);
      return seconds === undefined ? [] : [`\`${code}\` ${String(seconds)}`];
    })
    .join(', ');
}
