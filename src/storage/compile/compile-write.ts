import { deleteTouches } from '../../schema/delete-reach.js';
import type { ManyToManyRelation, Model, ResourceType } from '../../schema/model.js';
import type { SqlCompilerHooks, SqlValue } from '../dialect.js';

/** One statement ready to run. */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** Column name → value, already converted to what the driver stores. */
export type ColumnValues = ReadonlyMap<string, SqlValue>;

/** `firstParam`: the number of the first placeholder, for an insert that is part of a larger statement. */
export function compileInsert(hooks: SqlCompilerHooks, type: ResourceType, values: ColumnValues, firstParam = 0): SqlStatement {
  const columns = [...values.keys()];
  return {
    sql:
      `INSERT INTO ${hooks.quoteIdent(type.table)} (${columns.map((c) => hooks.quoteIdent(c)).join(', ')}) ` +
      `VALUES (${columns.map((_, i) => hooks.placeholder(firstParam + i)).join(', ')})`,
    params: [...values.values()],
  };
}

/** One INSERT of several rows (`diglot seed`), each row's values in `columns`' order. */
export function compileInsertRows(hooks: SqlCompilerHooks, table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): SqlStatement {
  const params: SqlValue[] = [];
  const tuples = rows.map((values) => `(${values.map((value) => hooks.placeholder(params.push(value) - 1)).join(', ')})`);
  return { sql: `INSERT INTO ${hooks.quoteIdent(table)} (${columns.map((c) => hooks.quoteIdent(c)).join(', ')}) VALUES ${tuples.join(', ')}`, params };
}

export function compileUpdate(hooks: SqlCompilerHooks, type: ResourceType, id: string, values: ColumnValues): SqlStatement {
  const columns = [...values.keys()];
  const sets = columns.map((c, i) => `${hooks.quoteIdent(c)} = ${hooks.placeholder(i)}`);
  return {
    sql: `UPDATE ${hooks.quoteIdent(type.table)} SET ${sets.join(', ')} WHERE ${hooks.quoteIdent('id')} = ${hooks.placeholder(columns.length)}`,
    params: [...values.values(), id],
  };
}

export function compileDelete(hooks: SqlCompilerHooks, type: ResourceType, id: string): SqlStatement {
  return { sql: `DELETE FROM ${hooks.quoteIdent(type.table)} WHERE ${hooks.quoteIdent('id')} = ${hooks.placeholder(0)}`, params: [id] };
}

export function compileExists(hooks: SqlCompilerHooks, type: ResourceType, id: string): SqlStatement {
  return { sql: `SELECT 1 AS found FROM ${hooks.quoteIdent(type.table)} WHERE ${hooks.quoteIdent('id')} = ${hooks.placeholder(0)}`, params: [id] };
}

/** Whether `table` has any row at all (`isEmpty`: `npm start` seeds an empty database only). */
export function compileAnyRow(hooks: SqlCompilerHooks, table: string): SqlStatement {
  return { sql: `SELECT 1 AS found FROM ${hooks.quoteIdent(table)} LIMIT 1`, params: [] };
}

/** Idempotent link insert: linking twice changes nothing and reports 0 changes. */
export function compileLink(hooks: SqlCompilerHooks, field: ManyToManyRelation, ownId: string, otherId: string): SqlStatement {
  const own = hooks.quoteIdent(field.ownColumn);
  const other = hooks.quoteIdent(field.otherColumn);
  return {
    sql:
      `INSERT INTO ${hooks.quoteIdent(field.joinTable)} (${own}, ${other}) VALUES (${hooks.placeholder(0)}, ${hooks.placeholder(1)}) ` +
      `ON CONFLICT DO NOTHING`,
    params: [ownId, otherId],
  };
}

export function compileUnlink(hooks: SqlCompilerHooks, field: ManyToManyRelation, ownId: string, otherId: string): SqlStatement {
  return {
    sql:
      `DELETE FROM ${hooks.quoteIdent(field.joinTable)} WHERE ${hooks.quoteIdent(field.ownColumn)} = ${hooks.placeholder(0)} ` +
      `AND ${hooks.quoteIdent(field.otherColumn)} = ${hooks.placeholder(1)}`,
    params: [ownId, otherId],
  };
}

/**
 * Tables whose rows a delete of `type` can change: its own, those of the
 * records its cascade removes or clears (`@relation(onDelete:)`), and the
 * join tables of every record removed. Their change clocks must move too,
 * or a cached list of posts would outlive its deleted author.
 */
export function affectedByDelete(model: Model, type: ResourceType): string[] {
  const { removed, changed } = deleteTouches(model, type);
  const tables = new Set<string>([...removed, ...changed].map((touched) => touched.table));
  const names = new Set(removed.map((touched) => touched.name));
  for (const join of model.joinTables) {
    if (names.has(join.sourceType) || names.has(join.targetType)) tables.add(join.name);
  }
  return [...tables].sort();
}
