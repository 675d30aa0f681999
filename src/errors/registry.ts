/**
 * The one table of client-visible error codes. REST renders them as RFC 9457
 * problem+json with `code`, GraphQL as `errors[].extensions.code`; both read
 * status and title from here, so the two styles can never disagree.
 *
 * Codes are grouped by the pipeline stage that raises them and are never
 * reused for another meaning once published. Every 503 entry says, in
 * `retryAfter` seconds, when to try again: both front-ends send it as
 * `Retry-After` (RFC 9110 §10.2.3), and a test holds every 503 to it.
 */
export const ERROR_REGISTRY = {
  // request: the HTTP envelope
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  BODY_TOO_LARGE: { status: 413, title: 'Request body too large' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request not received in time' },
  EXPECTATION_FAILED: { status: 417, title: 'Expectation not supported' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such route' },
  URI_TOO_LONG: { status: 414, title: 'URI too long' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  PRECONDITION_FAILED: { status: 412, title: 'Precondition failed' },
  PRECONDITION_REQUIRED: { status: 428, title: 'Precondition required' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  LIVE_READS_LIMIT: { status: 429, title: 'Too many live reads' },
  CROSS_SITE_REQUEST_REFUSED: { status: 403, title: 'Cross-site request refused' },
  HOST_NOT_ALLOWED: { status: 421, title: 'Host not allowed' },

  // auth: who is asking (src/auth/) and what they may do (the planner)
  UNAUTHENTICATED: { status: 401, title: 'Unauthenticated' },
  AUTHENTICATION_UNAVAILABLE: { status: 503, title: 'Authentication unavailable', retryAfter: 5 },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  FIELD_FORBIDDEN: { status: 403, title: 'Field forbidden' },

  // admin: the admin API (src/admin/)
  // A webhook endpoint from the configuration file: changed only by editing the file (docs/admin-api.md).
  WEBHOOK_ENDPOINT_READ_ONLY: { status: 409, title: 'Webhook endpoint is read-only' },

  // accounts: sign-up, sign-in and tokens Diglot issues (src/auth/accounts/)
  INVALID_CREDENTIALS: { status: 401, title: 'Invalid credentials' },
  WEAK_PASSWORD: { status: 400, title: 'Password too weak' },
  ACCOUNT_SUSPENDED: { status: 403, title: 'Account suspended' },
  REFRESH_TOKEN_INVALID: { status: 401, title: 'Refresh token invalid' },
  REFRESH_TOKEN_REUSED: { status: 401, title: 'Refresh token reused' },
  ONE_TIME_TOKEN_INVALID: { status: 400, title: 'Reset or verification token invalid' },

  // query: what was asked for
  QUERY_UNKNOWN_FIELD: { status: 400, title: 'Unknown field' },
  QUERY_UNKNOWN_RELATION: { status: 400, title: 'Unknown relation' },
  QUERY_INVALID_FILTER: { status: 400, title: 'Invalid filter' },
  QUERY_INVALID_ORDER: { status: 400, title: 'Invalid order' },
  QUERY_INVALID_CURSOR: { status: 400, title: 'Invalid cursor' },
  QUERY_INVALID_ARGUMENT: { status: 400, title: 'Invalid argument' },
  QUERY_PAGE_TOO_LARGE: { status: 400, title: 'Page size above the maximum' },
  QUERY_TOO_COMPLEX: { status: 400, title: 'Query too complex' },
  GRAPHQL_PARSE_FAILED: { status: 400, title: 'GraphQL syntax error' },
  GRAPHQL_VALIDATION_FAILED: { status: 400, title: 'GraphQL validation failed' },
  PERSISTED_QUERY_NOT_FOUND: { status: 400, title: 'Persisted query not found' },
  SUBSCRIPTION_UNSUPPORTED: { status: 400, title: 'Subscription not supported' },

  // input: what was sent to be written
  VALIDATION_FAILED: { status: 400, title: 'Validation failed' },
  INPUT_UNKNOWN_FIELD: { status: 400, title: 'Unknown input field' },
  INPUT_READONLY_FIELD: { status: 400, title: 'Field is read-only' },
  INPUT_REQUIRED_FIELD: { status: 400, title: 'Required field missing' },
  INPUT_WRONG_TYPE: { status: 400, title: 'Wrong type' },
  // An @immutable field's stored value differs from the one sent: a conflict with the record's state (RFC 9110 §15.5.10).
  INPUT_IMMUTABLE_FIELD: { status: 409, title: 'Field is set once' },

  // data: what the database said
  NOT_FOUND: { status: 404, title: 'Not found' },
  UNIQUE_VIOLATION: { status: 409, title: 'Unique constraint violated' },
  RELATION_CONFLICT: { status: 409, title: 'Relation conflict' },
  RELATION_TARGET_NOT_FOUND: { status: 409, title: 'Related record not found' },
  DATABASE_UNAVAILABLE: { status: 503, title: 'Database unavailable', retryAfter: 5 },
  DATABASE_TIMEOUT: { status: 503, title: 'Database timed out', retryAfter: 2 },
  QUERY_TIMEOUT: { status: 503, title: 'Query ran past its time budget', retryAfter: 1 },

  // files: uploads (checked by content, never by name) and stored files
  FILE_MISSING: { status: 400, title: 'File part missing' },
  FILE_TOO_LARGE: { status: 413, title: 'File too large' },
  FILE_TYPE_NOT_ALLOWED: { status: 415, title: 'File type not allowed' },
  FILE_CORRUPT: { status: 400, title: 'File corrupt or truncated' },
  FILE_TOO_MANY_PIXELS: { status: 400, title: 'Image has too many pixels' },
  UPLOAD_PREFLIGHT_REQUIRED: { status: 400, title: 'Preflight header required for uploads' },

  // schema: a user's SDL, reported by `diglot check` and at start-up
  SCHEMA_INVALID: { status: 500, title: 'Schema invalid' },

  // migration
  MIGRATION_DESTRUCTIVE: { status: 500, title: 'Destructive migration refused' },

  INTERNAL: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, ErrorEntry>;

export interface ErrorEntry {
  readonly status: number;
  readonly title: string;
  /** Seconds a client should wait before trying again (503 entries). */
  readonly retryAfter?: number;
}

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_REGISTRY, code);
}

/** The `Retry-After` seconds of a code, undefined for codes that retrying will not fix. */
export function retryAfterOf(code: string): number | undefined {
  if (!isErrorCode(code)) return undefined;
  const entry: ErrorEntry = ERROR_REGISTRY[code];
  return entry.retryAfter;
}

/**
 * The `Retry-After` seconds of an error: its own `retryAfter` extension where
 * it knows better (a rate limit says when its window ends), else its code's.
 */
export function retryAfterFor(code: string, extensions: Readonly<Record<string, unknown>>): number | undefined {
  const own = extensions['retryAfter'];
  return typeof own === 'number' ? own : retryAfterOf(code);
}
