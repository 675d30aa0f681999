import { ApiError, isApiError } from '../../errors/api-error.js';
import type { ErrorLookup } from '../map-db-error.js';

/** The fields pg copies from PostgreSQL's ErrorResponse onto its errors. */
interface PgErrorFields {
  readonly code?: unknown;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  readonly detail?: string;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** pg's own wording for a dead or unobtainable connection. */
const CONNECTION_MESSAGES = /Connection terminated|connection error and is not queryable|Cannot use a pool after calling end|Client was closed|not queryable/;

/** SQLSTATE classes that mean "this connection or server cannot serve now" (08: connection, 53: resources, 57P: shutdown). */
function isUnavailableState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === '40001' || code === '40P01';
}

function isSqlState(code: unknown): code is string {
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * True when the connection that raised `error` must not go back to the pool
 * (a constraint violation leaves it perfectly usable; a network error does not).
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as PgErrorFields | undefined)?.code;
  if (isSqlState(code)) return code.startsWith('08') || code.startsWith('57P');
  return true;
}

/**
 * pg errors → ApiErrors. PostgreSQL names the constraint, table and column
 * of a violation; constraint names are the ones `desiredSchema` gave, so
 * they lead back to model fields. Anything unrecognised is returned as it is.
 */
export function mapPostgresError(error: unknown, lookup: ErrorLookup): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  // Already mapped (an error thrown inside a transaction passes through twice).
  if (isApiError(error)) return error;
  const fields = error as Error & PgErrorFields;
  const code = fields.code;

  if (isSqlState(code)) {
    const named = fields.constraint === undefined ? undefined : lookup.constraint(fields.constraint);
    switch (code) {
      case '23505':
        return lookup.uniqueViolation(named?.table ?? fields.table, named?.columns ?? keyColumns(fields.detail), error);
      case '23503':
        // "update or delete on table "users" violates foreign key constraint … on table "orders"": a delete, not a missing target.
        if (error.message.startsWith('update or delete on table')) return lookup.stillReferenced(named?.table, named?.columns[0], error);
        return lookup.relationTargetMissing(named?.table ?? fields.table, named?.columns[0], error);
      case '23502':
        return lookup.requiredMissing(fields.table, fields.column, error);
      case '23514':
        return lookup.wrongType(named?.table ?? fields.table, named?.columns[0], error);
      case '22P02': // invalid text representation
      case '22003': // numeric value out of range
      case '22007': // invalid datetime format
      case '22008': // datetime field overflow
      case '22009': // invalid time zone displacement (how it reads `+010000-01-01T…`)
      case '22021': // invalid byte sequence
      case '22P05': // untranslatable character
        return lookup.wrongType(fields.table, fields.column, error);
      case '54000': {
        // A B-tree entry past its limit: "index row size 3016 exceeds btree version 4 maximum 2704 for index "users_email_key"",
        // or, past a page, "index row requires 9616 bytes, maximum size is 8191" (no index named). Input validation bounds
        // indexed text; this catches what it cannot see (several long values in one composite index).
        if (error.message.startsWith('index row')) {
          const index = /for index "([^"]+)"/.exec(error.message)?.[1];
          const known = index === undefined ? undefined : lookup.constraint(index);
          return lookup.valueTooLarge(known?.table ?? fields.table, known?.columns ?? [], error);
        }
        return new ApiError('QUERY_TOO_COMPLEX', { detail: 'The statement is past a limit of the database server.', cause: error });
      }
      case '54001': // statement too complex
        return new ApiError('QUERY_TOO_COMPLEX', { detail: 'The statement is past a limit of the database server.', cause: error });
      case '57014':
        return /statement timeout/.test(error.message) ? new ApiError('QUERY_TIMEOUT', { detail: 'The statement ran past its time budget and was stopped.', cause: error }) : error;
      case '55P03':
        return lookup.timeout('A lock was not granted within the lock timeout.', error);
    }
    if (code === '40001' || code === '40P01') return lookup.unavailable('The transaction conflicted with a concurrent one; retry it.', error);
    if (isUnavailableState(code)) return lookup.unavailable('The database server cannot serve requests right now.', error);
    return error;
  }

  if (typeof code === 'string' && NETWORK_CODES.has(code)) return lookup.unavailable('The database server cannot be reached.', error);
  if (/timeout exceeded when trying to connect/.test(error.message)) {
    return lookup.unavailable('Every database connection stayed busy past the connection timeout.', error);
  }
  if (CONNECTION_MESSAGES.test(error.message)) return lookup.unavailable('The connection to the database server was lost.', error);
  return error;
}

/** `Key (a, b)=(…) already exists.` → ['a', 'b']. */
function keyColumns(detail: string | undefined): string[] {
  const list = detail === undefined ? undefined : /^Key \(([^)]*)\)=/.exec(detail)?.[1];
  return list === undefined ? [] : list.split(', ').map((name) => name.replace(/^"(.*)"$/, '$1'));
}
