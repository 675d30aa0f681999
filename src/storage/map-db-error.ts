import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/registry.js';
import type { Model } from '../schema/model.js';
import { desiredSchema } from './migrate/desired-schema.js';
import { constraintName } from './migrate/schema-names.js';
import type { ColumnSpec, TableSpec } from './migrate/schema-spec.js';

/**
 * Database errors as client-facing ApiErrors, shared by both drivers. Each
 * driver recognises its own error shapes (SQLite messages, PostgreSQL
 * SQLSTATEs) and hands the table, columns or constraint name here, where
 * they are traced back to model fields through the same names
 * `desiredSchema` gives them. Values are never echoed: a unique violation
 * names the field, not what was in it.
 */
export interface ErrorLookup {
  /** A constraint or index name → its table and columns. */
  constraint(name: string): { readonly table: string; readonly columns: readonly string[] } | undefined;
  uniqueViolation(table: string | undefined, columns: readonly string[], cause: unknown): ApiError;
  relationTargetMissing(table: string | undefined, column: string | undefined, cause: unknown): ApiError;
  /** A delete refused by the foreign key of `table.column`, whose rows still point at the record: 409 RELATION_CONFLICT, never a 500. */
  stillReferenced(table: string | undefined, column: string | undefined, cause: unknown): ApiError;
  requiredMissing(table: string | undefined, column: string | undefined, cause: unknown): ApiError;
  /** An enum CHECK failed, or a value has the wrong type for its column. */
  wrongType(table: string | undefined, column: string | undefined, cause: unknown): ApiError;
  /** A value too large for an index over these columns (an empty list when the database did not say which). */
  valueTooLarge(table: string | undefined, columns: readonly string[], cause: unknown): ApiError;
  unavailable(detail: string, cause: unknown): ApiError;
  timeout(detail: string, cause: unknown): ApiError;
}

interface ColumnFacts {
  readonly table: TableSpec;
  readonly column: ColumnSpec;
}

export function createErrorLookup(model: Model | undefined): ErrorLookup {
  const columns = new Map<string, ColumnFacts>();
  const constraints = new Map<string, { table: string; columns: readonly string[] }>();
  const typeOfTable = new Map<string, string>();
  if (model !== undefined) {
    for (const table of desiredSchema(model).tables) {
      if (table.type !== undefined) typeOfTable.set(table.name, table.type);
      for (const column of table.columns) {
        columns.set(`${table.name}.${column.name}`, { table, column });
        constraints.set(constraintName(table.name, column.name, 'check'), { table: table.name, columns: [column.name] });
        if (column.references !== undefined) constraints.set(column.references.name, { table: table.name, columns: [column.name] });
      }
      constraints.set(constraintName(table.name, table.primaryKey.join('_'), 'pkey'), { table: table.name, columns: table.primaryKey });
      for (const index of table.indexes) constraints.set(index.name, { table: index.table, columns: index.columns });
    }
  }

  const facts = (table: string | undefined, column: string | undefined): ColumnFacts | undefined =>
    table === undefined || column === undefined ? undefined : columns.get(`${table}.${column}`);

  /** `User.email` when the model knows the column, else `users.email`, else `a field`. */
  const label = (table: string | undefined, column: string | undefined): string => {
    const known = facts(table, column);
    if (known?.column.field !== undefined) return `${known.table.type ?? known.table.name}.${known.column.field}`;
    if (table !== undefined && column !== undefined) return `${table}.${column}`;
    return column ?? 'a field';
  };

  const pointer = (table: string | undefined, column: string | undefined): string | undefined => {
    const field = facts(table, column)?.column.field;
    return field === undefined ? undefined : `/${field}`;
  };

  const apiError = (code: ErrorCode, detail: string, cause: unknown, at: readonly (string | undefined)[] = []): ApiError => {
    const errors: ErrorDetail[] = at
      .filter((p): p is string => p !== undefined)
      .map((p) => ({ pointer: p, code, detail }));
    return new ApiError(code, { detail, errors, cause });
  };

  return {
    constraint: (name) => constraints.get(name),

    uniqueViolation(table, cols, cause) {
      const known = facts(table, cols[0]);
      if (known?.table.kind === 'join') return apiError('UNIQUE_VIOLATION', 'The two records are already linked.', cause);
      const owner = known?.table.type ?? table ?? 'record';
      const fields = cols.map((column) => facts(table, column)?.column.field ?? column);
      const what = fields.length === 1 ? `this ${fields[0] ?? 'value'}` : `this combination of ${fields.join(', ')}`;
      return apiError('UNIQUE_VIOLATION', `Another ${owner} already has ${what}.`, cause, cols.map((column) => pointer(table, column)));
    },

    relationTargetMissing(table, column, cause) {
      const target = facts(table, column)?.column.references?.table;
      const targetType = target === undefined ? undefined : typeOfTable.get(target);
      const detail =
        column === undefined
          ? 'A related record does not exist.'
          : `${label(table, column)}: no ${targetType ?? target ?? 'record'} has this id.`;
      return apiError('RELATION_TARGET_NOT_FOUND', detail, cause, [pointer(table, column)]);
    },

    stillReferenced(table, column, cause) {
      const known = facts(table, column);
      const type = known?.table.type;
      const target = known?.column.references?.table;
      const targetType = target === undefined ? undefined : typeOfTable.get(target);
      if (type === undefined || known?.column.field === undefined) {
        return new ApiError('RELATION_CONFLICT', { detail: 'Other records refer to this record: delete or change them first.', cause });
      }
      const relation = `${type}.${known.column.field}`;
      return new ApiError('RELATION_CONFLICT', {
        detail: `Records of ${type} (${relation}) refer to this ${targetType ?? 'record'}: delete or change them first.`,
        extensions: { relation, type, field: known.column.field, onDelete: 'RESTRICT' },
        cause,
      });
    },

    requiredMissing(table, column, cause) {
      return apiError('INPUT_REQUIRED_FIELD', `${label(table, column)} is required.`, cause, [pointer(table, column)]);
    },

    wrongType(table, column, cause) {
      const known = facts(table, column)?.column;
      const detail =
        known?.enumValues !== undefined
          ? `${label(table, column)} must be one of ${known.enumValues.join(', ')}.`
          : known?.type === 'Boolean'
            ? `${label(table, column)} must be true or false.`
            : column === undefined
              ? 'A value has the wrong type for its field.'
              : `${label(table, column)} has the wrong type.`;
      return apiError('INPUT_WRONG_TYPE', detail, cause, [pointer(table, column)]);
    },

    valueTooLarge(table, cols, cause) {
      const fields = cols.map((column) => label(table, column));
      const detail = fields.length === 0 ? 'A value is too large for the index of its field.' : `The value of ${fields.join(', ')} is too large for its index.`;
      return apiError('VALIDATION_FAILED', detail, cause, cols.map((column) => pointer(table, column)));
    },

    unavailable: (detail, cause) => apiError('DATABASE_UNAVAILABLE', detail, cause),
    timeout: (detail, cause) => apiError('DATABASE_TIMEOUT', detail, cause),
  };
}
