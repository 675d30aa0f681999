import type { WritePlan } from '../plan/write-plan.js';
import type { ResourceType } from '../schema/model.js';

/** Adds the file keys held in `columns` of `rows` (read by a write's `files` steps) to `found`. */
export function addFileKeys(found: Set<string>, rows: readonly Record<string, unknown>[], columns: readonly string[]): void {
  for (const row of rows) {
    for (const column of columns) {
      const value = row[column];
      if (typeof value === 'string' && value !== '') found.add(value);
    }
  }
}

/**
 * The keys a write stopped pointing at, of those its file columns held
 * before it (`found`): keys an update writes again are left out.
 */
export function keysLeftBehind(found: ReadonlySet<string>, type: ResourceType, plan: WritePlan): string[] {
  const left = new Set(found);
  if (plan.kind === 'update') {
    for (const field of type.fields) {
      const next = field.kind === 'file' && Object.hasOwn(plan.values, field.name) ? plan.values[field.name] : undefined;
      if (typeof next === 'string') left.delete(next);
    }
  }
  return [...left];
}
