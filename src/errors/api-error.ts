import { ERROR_REGISTRY, type ErrorCode } from './registry.js';

/** One problem inside a validation error: where (RFC 6901 JSON pointer) and what. */
export interface ErrorDetail {
  readonly pointer: string;
  readonly code: ErrorCode;
  readonly detail: string;
}

export interface ApiErrorOptions {
  readonly detail?: string;
  /** Per-item problems, for validation errors that collect several. */
  readonly errors?: readonly ErrorDetail[];
  /** Extra machine-readable members (for example `allow` for 405). */
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * The only error type that crosses a layer boundary on purpose. Anything else
 * that reaches a front-end is an internal failure and is masked as INTERNAL.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: readonly ErrorDetail[];
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const entry = ERROR_REGISTRY[code];
    super(options.detail ?? entry.title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = options.detail;
    this.errors = options.errors ?? [];
    this.extensions = options.extensions ?? {};
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
