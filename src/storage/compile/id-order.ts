import type { Field } from '../../schema/model.js';
import type { Param } from '../../plan/read-plan.js';
import type { SqlContext } from './sql-context.js';

/**
 * The record's own id, the key every list ends with. A reference (`author`)
 * holds an id too but sorts and compares as text, as the index on it
 * (`author_id`, then the id's terms) serves that order and its lookups.
 */
export function isIdField(field: Field): boolean {
  return field.kind === 'scalar' && field.auto === 'id';
}

/**
 * `column op value` in the id order: the id's terms against the value's, as
 * one row value (a single term on SQLite), which the index on those terms
 * answers with a seek.
 */
export function compareIds(ctx: SqlContext, column: string, op: '<' | '<=' | '>' | '>=', value: Param): string {
  const left = ctx.sql.idOrder(() => column);
  const right = ctx.sql.idOrder(() => ctx.param(value));
  return left.length === 1 ? `${left[0] as string} ${op} ${right[0] as string}` : `(${left.join(', ')}) ${op} (${right.join(', ')})`;
}
