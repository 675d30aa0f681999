/**
 * Why a database could not be opened. Not an ApiError: no client ever sees
 * it. The command line prints `message` as one line and exits, so the
 * message names the target and the fix, and the stack is kept to that line.
 */
export type StorageOpenErrorCode =
  /** The file exists but is not a SQLite database. */
  | 'NOT_A_DATABASE'
  /** Another process holds a lock on the file for longer than the busy timeout. */
  | 'LOCKED'
  /** The folder the SQLite file should be in does not exist. */
  | 'DIRECTORY_MISSING'
  /** The file cannot be opened (permissions, a directory, a read-only medium). */
  | 'CANNOT_OPEN'
  /** No PostgreSQL server answers at the address. */
  | 'UNREACHABLE'
  /** The server refused the user or password. */
  | 'AUTH_FAILED'
  /** The server runs, but the database named in the URL does not exist. */
  | 'DATABASE_MISSING'
  /** The target is not a usable path or URL. */
  | 'INVALID_TARGET';

export class StorageOpenError extends Error {
  readonly code: StorageOpenErrorCode;

  constructor(code: StorageOpenErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StorageOpenError';
    this.code = code;
    // A stack would only point into the driver; printed (even by a plain
    // console.error) the error is its one line.
    this.stack = `${this.name}: ${message}`;
  }
}

export function isStorageOpenError(value: unknown): value is StorageOpenError {
  return value instanceof StorageOpenError;
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`: messages never carry passwords. */
export function redactUrl(target: string): string {
  try {
    const url = new URL(target);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return target.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}
