import type { ResourceType } from '../../schema/model.js';
import type { Cursor, OrderKey } from '../../plan/read-plan.js';
import { columnOf } from './compile-filter.js';
import type { SqlContext } from './sql-context.js';

/**
 * NULL sorts as the largest value in both directions (PostgreSQL's default,
 * spelled out so SQLite agrees), which keyset conditions below rely on.
 */
export function compileOrderBy(columns: readonly string[], order: readonly OrderKey[], reverse: boolean): string {
  return columns
    .map((column, i) => {
      const key = order[i];
      if (key === undefined) throw new Error('order key/column mismatch');
      const ascending = (key.direction === 'asc') !== reverse;
      return `${column} ${ascending ? 'ASC NULLS LAST' : 'DESC NULLS FIRST'}`;
    })
    .join(', ');
}

export function orderColumns(ctx: SqlContext, type: ResourceType, alias: string, order: readonly OrderKey[]): string[] {
  return order.map((key) => columnOf(ctx, type, alias, key.field));
}

/**
 * Rows strictly after (`forward`) or before the cursor in the list's order:
 * `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR …`, written out per key because
 * row-value comparison cannot mix directions or handle NULLs.
 */
export function compileKeyset(
  ctx: SqlContext,
  columns: readonly string[],
  order: readonly OrderKey[],
  cursor: Cursor,
  forward: boolean,
): string {
  if (cursor.values.length !== order.length) throw new Error('cursor does not match the order');
  const branches: string[] = [];
  for (let i = 0; i < order.length; i++) {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(equals(ctx, columns, cursor, j));
    const beyond = beyondKey(ctx, columns[i] as string, order[i] as OrderKey, cursor, i, forward);
    if (beyond === undefined) continue;
    parts.push(beyond);
    branches.push(parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`);
  }
  return branches.length === 0 ? '1=0' : `(${branches.join(' OR ')})`;
}

function equals(ctx: SqlContext, columns: readonly string[], cursor: Cursor, i: number): string {
  const column = columns[i] as string;
  return cursor.nulls[i] ? `${column} IS NULL` : `${column} = ${ctx.param(cursor.values[i] as Cursor['values'][number])}`;
}

/** The condition "strictly past v in the travel direction", or undefined when nothing can be. */
function beyondKey(
  ctx: SqlContext,
  column: string,
  key: OrderKey,
  cursor: Cursor,
  i: number,
  forward: boolean,
): string | undefined {
  // Travelling towards larger values (NULL being the largest)?
  const upward = (key.direction === 'asc') === forward;
  const isNull = cursor.nulls[i] === true;
  if (upward) {
    if (isNull) return undefined;
    return `(${column} > ${ctx.param(cursor.values[i] as Cursor['values'][number])} OR ${column} IS NULL)`;
  }
  if (isNull) return `${column} IS NOT NULL`;
  return `${column} < ${ctx.param(cursor.values[i] as Cursor['values'][number])}`;
}
