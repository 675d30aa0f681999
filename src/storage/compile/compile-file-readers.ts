import type { Filter, Param } from '../../plan/read-plan.js';
import type { FileField, Model, ResourceType } from '../../schema/model.js';
import type { SqlCompilerHooks, SqlValue } from '../dialect.js';
import { compileFilter } from './compile-filter.js';
import type { SqlStatement } from './compile-write.js';
import { SqlContext } from './sql-context.js';

/** A file field one may read, on the rows `filter` keeps (its type's row rule and the field's mask; undefined: every row). */
export interface FileHolder {
  readonly type: ResourceType;
  readonly field: FileField;
  readonly filter: Filter | undefined;
}

/**
 * One statement: does any record the caller may read hold the file `key`
 * in a field the caller may read? A row when it does, none otherwise.
 * `key` and the rules' values are slots of `params` (a plan's params).
 */
export function compileFileReaders(model: Model, hooks: SqlCompilerHooks, holders: readonly FileHolder[], key: Param, params: readonly unknown[]): SqlStatement {
  const ctx = new SqlContext(model, hooks);
  const branches = holders.map(({ type, field, filter }) => {
    const alias = ctx.alias();
    // Text order is placeholder order (SQLite's are positional): the key, then the rule's values.
    const held = `${ctx.ref(alias, field.column)} = ${ctx.param(key)}`;
    const where = filter === undefined ? held : `${held} AND ${compileFilter(ctx, type, alias, filter)}`;
    return `SELECT 1 AS found FROM ${ctx.table(type)} ${alias} WHERE ${where}`;
  });
  // No field the caller may read: a statement that finds nothing, so the answer is still one statement's.
  const sql = branches.length === 0 ? 'SELECT 1 AS found WHERE 1 = 0' : `${branches.join(' UNION ALL ')} LIMIT 1`;
  return { sql, params: ctx.paramOrder.map((index) => params[index] as SqlValue) };
}
