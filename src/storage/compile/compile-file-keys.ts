import type { WritePlan } from '../../plan/write-plan.js';
import type { FileField, Model, ResourceType } from '../../schema/model.js';
import type { SqlCompilerHooks } from '../dialect.js';
import type { SqlStatement } from './compile-write.js';

/**
 * The SQL behind record ↔ file consistency: which file keys a write is
 * about to stop pointing at, and whether any record still points at a key.
 * Content addressing lets two records share one file, so a file is deleted
 * only when no file column of any table holds its key.
 */

/** A statement reading file keys, and the columns of its rows that hold them. */
export interface FileKeyRead extends SqlStatement {
  readonly columns: readonly string[];
}

/** Every file column of the model, as (table, column). */
export function fileColumns(model: Model): { readonly table: string; readonly column: string }[] {
  return model.types.flatMap((type) => fileFieldsOf(type).map((field) => ({ table: type.table, column: field.column })));
}

/** One statement: does any record hold `key` in a file column? Undefined when the model has no file field. */
export function compileFileReference(model: Model, hooks: SqlCompilerHooks): ((key: string) => SqlStatement) | undefined {
  const columns = fileColumns(model);
  if (columns.length === 0) return undefined;
  const q = (name: string): string => hooks.quoteIdent(name);
  const sql =
    columns.map(({ table, column }, i) => `SELECT 1 AS found FROM ${q(table)} WHERE ${q(column)} = ${hooks.placeholder(i)}`).join(' UNION ALL ') +
    ' LIMIT 1';
  return (key) => ({ sql, params: columns.map(() => key) });
}

/** True when `plan` may change a file column (so the rows it touches must be read first); a delete's cascade reads its own (compile-cascade.ts). */
export function touchesFiles(_model: Model, type: ResourceType, plan: WritePlan): boolean {
  if (plan.kind === 'update') return fileFieldsOf(type).some((field) => Object.hasOwn(plan.values, field.name));
  return plan.kind === 'delete' && fileFieldsOf(type).length > 0;
}

/**
 * The reads, made inside the write's transaction before it changes anything,
 * of the keys held by the file columns it is about to overwrite (an update)
 * or remove (a delete; the records its cascade removes are read by the cascade).
 */
export function compileFileKeyReads(model: Model, hooks: SqlCompilerHooks, type: ResourceType, plan: WritePlan): FileKeyRead[] {
  const q = (name: string): string => hooks.quoteIdent(name);
  if (plan.kind !== 'update' && plan.kind !== 'delete') return [];
  const fields = fileFieldsOf(type).filter((field) => plan.kind === 'delete' || Object.hasOwn(plan.values, field.name));
  if (fields.length === 0) return [];
  const columns = fields.map((field) => field.column);
  return [{ sql: `SELECT ${columns.map(q).join(', ')} FROM ${q(type.table)} WHERE ${q('id')} = ${hooks.placeholder(0)}`, params: [plan.id], columns }];
}

function fileFieldsOf(type: ResourceType): FileField[] {
  return type.fields.filter((field): field is FileField => field.kind === 'file');
}
