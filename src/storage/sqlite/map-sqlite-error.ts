import { ApiError, isApiError } from '../../errors/api-error.js';
import type { ErrorLookup } from '../map-db-error.js';

/**
 * better-sqlite3 errors → ApiErrors. SQLite says which columns failed only in
 * its message text (`UNIQUE constraint failed: users.email`); a failed
 * foreign key names nothing at all. Anything unrecognised is returned as it
 * is and surfaces as INTERNAL.
 */
export function mapSqliteError(error: unknown, lookup: ErrorLookup): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  // Already mapped (an error thrown inside a transaction passes through twice).
  if (isApiError(error)) return error;
  const code = (error as { code?: unknown }).code;
  // better-sqlite3 throws a plain TypeError once the connection is closed (shutdown, or a failed file).
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
    return new ApiError('DATABASE_UNAVAILABLE', { detail: 'The database is closed', cause: error });
  }
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const message = error.message;

  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY': {
      // An expression index (a case-folded identifier's) is named, not its columns: "UNIQUE constraint failed: index 'users_email_key'".
      const index = /index '([^']+)'/.exec(message)?.[1];
      const known = index === undefined ? undefined : lookup.constraint(index);
      if (known !== undefined) return lookup.uniqueViolation(known.table, known.columns, error);
      const columns = qualifiedColumns(message);
      return lookup.uniqueViolation(columns[0]?.table, columns.map((c) => c.column), error);
    }
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return lookup.relationTargetMissing(undefined, undefined, error);
    // ON DELETE RESTRICT fails as an action, at once, naming nothing: only a delete of a record others point at raises it.
    case 'SQLITE_CONSTRAINT_TRIGGER':
      if (message === 'FOREIGN KEY constraint failed') return lookup.stillReferenced(undefined, undefined, error);
      return error;
    case 'SQLITE_CONSTRAINT_NOTNULL': {
      const [column] = qualifiedColumns(message);
      return lookup.requiredMissing(column?.table, column?.column, error);
    }
    case 'SQLITE_CONSTRAINT_CHECK': {
      const name = /constraint failed: (.+)$/.exec(message)?.[1];
      const found = name === undefined ? undefined : lookup.constraint(name);
      return lookup.wrongType(found?.table, found?.columns[0], error);
    }
    case 'SQLITE_CONSTRAINT_DATATYPE': {
      // "cannot store TEXT value in INTEGER column users.age"
      const [column] = qualifiedColumns(/column (\S+)$/.exec(message)?.[1] ?? '');
      return lookup.wrongType(column?.table, column?.column, error);
    }
    case 'SQLITE_FULL':
      return lookup.unavailable('The database disk is full.', error);
    case 'SQLITE_INTERRUPT':
      return lookup.timeout('The statement was interrupted.', error);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return lookup.unavailable('The database stayed locked by another writer past the busy timeout.', error);
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN') {
    return lookup.unavailable('The database file cannot be read or written.', error);
  }
  return error;
}

/** `users.email, users.name` (after the last ': ') → table/column pairs. */
function qualifiedColumns(text: string): { table: string; column: string }[] {
  const list = text.includes(': ') ? text.slice(text.lastIndexOf(': ') + 2) : text;
  return list
    .split(', ')
    .map((item) => {
      const dot = item.indexOf('.');
      return dot === -1 ? undefined : { table: item.slice(0, dot), column: item.slice(dot + 1) };
    })
    .filter((item): item is { table: string; column: string } => item !== undefined);
}
