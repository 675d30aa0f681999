import type { WritePlan } from '../plan/write-plan.js';
import type { FileField, Model, ResourceType } from '../schema/model.js';
import type { SqlCompilerHooks, SqlRunner } from '../storage/dialect.js';

/**
 * Which stored files a write stops pointing at, and whether any record still
 * points at a file. Content addressing lets two records share one file, so
 * a file is deleted only when no file column of any table holds its key.
 */

/** Every file column of the model, as (table, column). */
export function fileColumns(model: Model): { readonly table: string; readonly column: string }[] {
  return model.types.flatMap((type) => fileFieldsOf(type).map((field) => ({ table: type.table, column: field.column })));
}

/** One statement: does any record hold `key` in a file column? */
export function referenceQuery(model: Model, hooks: SqlCompilerHooks): ((key: string) => { sql: string; params: string[] }) | undefined {
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
 * Inside the write's transaction, before it changes anything: the keys held
 * by the file columns it is about to overwrite (an update) or remove (a
 * delete, with every row the delete cascades to: a user's posts' covers go
 * with the user). Keys the update writes again are left out.
 */
export async function keysLeftBehind(tx: SqlRunner, model: Model, hooks: SqlCompilerHooks, type: ResourceType, plan: WritePlan): Promise<string[]> {
  const q = (name: string): string => hooks.quoteIdent(name);
  const found = new Set<string>();
  const collect = async (sql: string, params: readonly string[], columns: readonly string[]): Promise<void> => {
    const rows = await tx.all(sql, params);
    for (const row of rows) {
      for (const column of columns) {
        const value = row[column];
        if (typeof value === 'string' && value !== '') found.add(value);
      }
    }
  };
  if (plan.kind === 'update') {
    const fields = fileFieldsOf(type).filter((field) => Object.hasOwn(plan.values, field.name));
    if (fields.length === 0) return [];
    const columns = fields.map((field) => field.column);
    await collect(`SELECT ${columns.map(q).join(', ')} FROM ${q(type.table)} WHERE ${q('id')} = ${hooks.placeholder(0)}`, [plan.id], columns);
    for (const field of fields) {
      const next = plan.values[field.name];
      if (typeof next === 'string') found.delete(next);
    }
    return [...found];
  }
  if (plan.kind !== 'delete') return [];
  // The rows a delete removes, as nested `id IN (…)` subqueries from the root
  // record down each cascading relation (a required to-one: ON DELETE CASCADE).
  const visit = async (current: ResourceType, ids: string, path: ReadonlySet<string>): Promise<void> => {
    const columns = fileFieldsOf(current).map((field) => field.column);
    if (columns.length > 0) await collect(`SELECT ${columns.map(q).join(', ')} FROM ${q(current.table)} WHERE ${q('id')} IN (${ids})`, [plan.id], columns);
    for (const child of model.types) {
      // A type already on the path (a self-relation, a cycle) is not followed
      // again: its deeper rows' files would at worst stay behind as orphans.
      if (path.has(child.name)) continue;
      for (const field of child.fields) {
        if (field.kind !== 'toOne' || field.nullable || field.target !== current.name) continue;
        if (!cascadeHasFiles(model, child, new Set(path))) continue;
        await visit(child, `SELECT ${q('id')} FROM ${q(child.table)} WHERE ${q(field.column)} IN (${ids})`, new Set([...path, child.name]));
      }
    }
  };
  await visit(type, hooks.placeholder(0), new Set([type.name]));
  return [...found];
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
