import type { WritePlan } from '../plan/write-plan.js';
import type { Model, ResourceType } from '../schema/model.js';
import { compileFileKeyReads } from '../storage/compile/compile-file-keys.js';
import type { SqlCompilerHooks, SqlRunner } from '../storage/dialect.js';

export { touchesFiles } from '../storage/compile/compile-file-keys.js';

/**
 * Inside the write's transaction, before it changes anything: the keys held
 * by the file columns it is about to overwrite (an update) or remove (a
 * delete, with every row the delete cascades to). Keys the update writes
 * again are left out.
 */
export async function keysLeftBehind(tx: SqlRunner, model: Model, hooks: SqlCompilerHooks, type: ResourceType, plan: WritePlan): Promise<string[]> {
  const found = new Set<string>();
  for (const read of compileFileKeyReads(model, hooks, type, plan)) {
    for (const row of await tx.all(read.sql, read.params)) {
      for (const column of read.columns) {
        const value = row[column];
        if (typeof value === 'string' && value !== '') found.add(value);
      }
    }
  }
  if (plan.kind === 'update') {
    for (const field of type.fields) {
      const next = field.kind === 'file' && Object.hasOwn(plan.values, field.name) ? plan.values[field.name] : undefined;
      if (typeof next === 'string') found.delete(next);
    }
  }
  return [...found];
}
