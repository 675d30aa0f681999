import type { Readable } from 'node:stream';
import { ApiError, isApiError } from '../errors/api-error.js';
import type { FileLimits } from './file-service.js';

/**
 * `multipart/form-data` as both front-ends read it (@fastify/multipart in
 * stream mode): its limits, and its errors as registered codes.
 */

/** Busboy limits for a server whose uploads are at most `limits.maxUploadBytes`. */
export function multipartLimits(limits: FileLimits, textBytes: number): Record<string, number> {
  return {
    // One byte more than we accept: our own count refuses the file first, with
    // FILE_TOO_LARGE, and busboy's truncation is only the backstop.
    fileSize: limits.maxUploadBytes + 1,
    fieldSize: textBytes,
    fields: 200,
    files: 20,
    parts: 250,
    headerPairs: 200,
  };
}

/** The parts of a multipart body, with the parser's failures as ApiErrors. */
export async function* multipartParts<Part>(parts: AsyncIterable<Part>): AsyncGenerator<Part> {
  try {
    for await (const part of parts) yield part;
  } catch (error) {
    throw multipartError(error);
  }
}

/** Receives one file part; an upload that breaks off is a 400, not an internal error. */
export async function receivePart<T>(receive: (source: Readable) => Promise<T>, source: Readable): Promise<T> {
  try {
    return await receive(source);
  } catch (error) {
    throw multipartError(error);
  }
}

export function multipartError(error: unknown): unknown {
  if (isApiError(error)) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('FILE_TOO_LARGE', { detail: 'A file in the request is larger than this server accepts' });
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ApiError('BODY_TOO_LARGE', { detail: 'The multipart body has more parts than this server accepts' });
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new ApiError('MALFORMED_JSON', { detail: 'A part declared as application/json is not valid JSON' });
    case 'FST_PROTO_VIOLATION':
      return new ApiError('BAD_REQUEST', { detail: 'A part name is not allowed' });
    case 'FST_MP_PREMATURE_CLOSE':
    case 'ECONNRESET':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      // Nobody reads this answer (the client is gone), but it is not the server's fault either.
      return new ApiError('BAD_REQUEST', { detail: 'The request ended before its multipart body did' });
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'Send multipart/form-data' });
    default:
      break;
  }
  const message = error instanceof Error ? error.message : '';
  if (/multipart|boundary|part header|terminated early|unexpected end/i.test(message)) {
    return new ApiError('BAD_REQUEST', { detail: `The multipart body is malformed: ${message}` });
  }
  return error;
}
