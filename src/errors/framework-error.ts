import { ApiError, isApiError } from './api-error.js';

/** The members of a Fastify error (FST_ERR_*) that say what went wrong. */
interface FrameworkError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: string;
}

/**
 * An error the web framework raised about the request's envelope (media
 * type, body size, malformed JSON) as the registered code both front-ends
 * answer with; an ApiError as it is; undefined for anything else, which the
 * caller masks as INTERNAL.
 */
export function apiErrorOf(raw: unknown): ApiError | undefined {
  if (isApiError(raw)) return raw;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const error = raw as FrameworkError;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'This content type is not accepted here; send application/json' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('BODY_TOO_LARGE', { detail: 'The request body is larger than this server accepts' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('MALFORMED_JSON', { detail: 'The body is empty but the content type says JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('BAD_REQUEST', { detail: 'Content-Length does not match the body' });
    default:
      break;
  }
  // A body parser's JSON.parse (application/merge-patch+json) fails with a bare SyntaxError.
  if (raw instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('MALFORMED_JSON', { detail: `The body is not valid JSON: ${error.message ?? ''}` });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('BAD_REQUEST', { detail: error.message ?? 'Bad request' });
  }
  return undefined;
}
