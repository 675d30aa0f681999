import type { ApiError } from '../errors/api-error.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 problem details, with Diglot's stable `code` and per-item `errors`. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly code: string;
  readonly instance?: string;
  readonly errors?: readonly { readonly pointer: string; readonly code: string; readonly detail: string }[];
  readonly [extension: string]: unknown;
}

export function problemOf(error: ApiError, instance?: string): Problem {
  return {
    ...error.extensions,
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    code: error.code,
    // The raw request target may hold brackets (filter[x]); a URI reference may not.
    ...(instance === undefined ? {} : { instance: instance.replaceAll('[', '%5B').replaceAll(']', '%5D') }),
    ...(error.errors.length > 0 ? { errors: error.errors } : {}),
  };
}

/** A URN rather than a URL: problem types are identifiers, and this one never needs a network. */
export function problemType(code: string): string {
  return `urn:diglot:problem:${code}`;
}
