import { ERROR_REGISTRY, type ErrorCode } from '../../errors/registry.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { ComponentNames } from './component-names.js';
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

/** The error responses, one per status, each listing the codes it can carry. */
export const ERROR_RESPONSES = {
  BadRequest: 400,
  Forbidden: 403,
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
  Forbidden:
    'A write in a form\'s content type (multipart/form-data, application/x-www-form-urlencoded, text/plain) or with no body came from a page of another site (Origin, Sec-Fetch-Site): ' +
    'send it from this origin, as JSON, or with a non-empty GraphQL-Require-Preflight header.',
  NotFound: 'No record has this id (or no route has this path).',
  Conflict: 'The write conflicts with other data: a unique value already taken, or a related record (by id) that does not exist.',
  PreconditionFailed: 'If-Match does not match the current ETag of the record: it changed since it was read, and nothing was written.',
  ContentTooLarge: 'The request body, or a file in it, is larger than the server accepts.',
  UnsupportedMediaType: 'The body is not in a content type this operation accepts, or an uploaded file is not an image type it accepts.',
  PreconditionRequired: 'This server requires If-Match on writes (RFC 6585), so that no update is ever lost.',
};

/** `requireIfMatch`: whether the server can answer 428 at all (only then is its response described). */
export function sharedResponses(names: ComponentNames, requireIfMatch: boolean): Record<string, Response> {
  const problem = { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', names.problem) } };
  const responses: Record<string, Response> = {};
  for (const [name, status] of Object.entries(ERROR_RESPONSES) as [ErrorResponseName, number][]) {
    if (name === 'PreconditionRequired' && !requireIfMatch) continue;
    responses[name] = { description: `${ERROR_SUMMARIES[name]} Codes: ${codesFor(status).join(', ')}.`, content: problem };
  }
  responses['NotModified'] = {
    description: 'The representation named in If-None-Match is still current: no body. The caching headers are those of a 200.',
    headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') },
  };
  responses['InternalError'] = {
    description: `Something failed on the server side (${codesFor(500).join(', ')}): the problem carries an \`errorId\` to quote; the details are in the server's log.`,
    content: problem,
  };
  responses['ServiceUnavailable'] = {
    description: `The database does not answer, or not in time (${codesFor(503).join(', ')}). Retrying later may succeed.`,
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before trying again (RFC 9110 §10.2.3), from the registry entry of the code.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: problem,
  };
  return responses;
}

function codesFor(status: number): ErrorCode[] {
  return (Object.keys(ERROR_REGISTRY) as ErrorCode[]).filter(
    (code) => ERROR_REGISTRY[code].status === status && !code.startsWith('GRAPHQL_') && code !== 'PERSISTED_QUERY_NOT_FOUND' && code !== 'SCHEMA_INVALID' && code !== 'MIGRATION_DESTRUCTIVE',
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
  };
}
