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

/** True when `plan` may change a file column (so the rows it touches must be read first). */
export function touchesFiles(model: Model, type: ResourceType, plan: WritePlan): boolean {
  if (plan.kind === 'update') return fileFieldsOf(type).some((field) => Object.hasOwn(plan.values, field.name));
  if (plan.kind === 'delete') return cascadeHasFiles(model, type, new Set());
  return false;
}

/**
 * The reads, made inside the write's transaction before it changes anything,
 * of the keys held by the file columns it is about to overwrite (an update)
 * or remove (a delete, with every row the delete cascades to: a user's
 * posts' covers go with the user).
 */
export function compileFileKeyReads(model: Model, hooks: SqlCompilerHooks, type: ResourceType, plan: WritePlan): FileKeyRead[] {
  const q = (name: string): string => hooks.quoteIdent(name);
  if (plan.kind === 'update') {
    const fields = fileFieldsOf(type).filter((field) => Object.hasOwn(plan.values, field.name));
    if (fields.length === 0) return [];
    const columns = fields.map((field) => field.column);
    return [{ sql: `SELECT ${columns.map(q).join(', ')} FROM ${q(type.table)} WHERE ${q('id')} = ${hooks.placeholder(0)}`, params: [plan.id], columns }];
  }
  if (plan.kind !== 'delete') return [];
  const reads: FileKeyRead[] = [];
  // The rows a delete removes, as nested `id IN (…)` subqueries from the root
  // record down each cascading relation (a required to-one: ON DELETE CASCADE).
  const visit = (current: ResourceType, ids: string, path: ReadonlySet<string>): void => {
    const columns = fileFieldsOf(current).map((field) => field.column);
    if (columns.length > 0) reads.push({ sql: `SELECT ${columns.map(q).join(', ')} FROM ${q(current.table)} WHERE ${q('id')} IN (${ids})`, params: [plan.id], columns });
    for (const child of model.types) {
      // A type already on the path (a self-relation, a cycle) is not followed
      // again: its deeper rows' files would at worst stay behind as orphans.
      if (path.has(child.name)) continue;
      for (const field of child.fields) {
        if (field.kind !== 'toOne' || field.nullable || field.target !== current.name) continue;
        if (!cascadeHasFiles(model, child, new Set(path))) continue;
        visit(child, `SELECT ${q('id')} FROM ${q(child.table)} WHERE ${q(field.column)} IN (${ids})`, new Set([...path, child.name]));
      }
    }
  };
  visit(type, hooks.placeholder(0), new Set([type.name]));
  return reads;
}

function fileFieldsOf(type: ResourceType): FileField[] {
  return type.fields.filter((field): field is FileField => field.kind === 'file');
}

/** Whether deleting a `type` record can remove a file: it has file fields, or a cascade reaches a type that has. */
function cascadeHasFiles(model: Model, type: ResourceType, seen: Set<string>): boolean {
  if (fileFieldsOf(type).length > 0) return true;
  seen.add(type.name);
  return model.types.some(
    (child) =>
      !seen.has(child.name) &&
      child.fields.some((field) => field.kind === 'toOne' && !field.nullable && field.target === type.name) &&
      cascadeHasFiles(model, child, seen),
  );
}
