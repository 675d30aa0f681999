import type { ResourceType } from '../../schema/model.js';
import type { Cursor, OrderKey } from '../../plan/read-plan.js';
import { columnOf } from './compile-filter.js';
import { compareIds, isIdField } from './id-order.js';
import type { SqlContext } from './sql-context.js';

/**
 * An order key's SQL expression, whether it can be NULL (which changes how
 * it sorts and compares), and whether it holds a record's id, which sorts
 * by the dialect's `idOrder` terms (shorter ids first) rather than as text.
 */
export interface OrderColumn {
  readonly expr: string;
  readonly nullable: boolean;
  readonly id: boolean;
}

/** The expressions a column sorts by: the id's order terms, or the column itself. */
function sortTerms(ctx: SqlHooksContext, column: OrderColumn): readonly string[] {
  return column.id ? ctx.sql.idOrder(() => column.expr) : [column.expr];
}

/** The part of the compile state sorting needs: the dialect's spellings. */
type SqlHooksContext = Pick<SqlContext, 'sql'>;

/**
 * NULL sorts as the largest value in both directions (PostgreSQL's default,
 * spelled out so SQLite agrees), which keyset conditions below rely on. The
 * NULLS clause is written only for columns that can hold NULL: on a NOT NULL
 * column it changes nothing but would keep SQLite from walking an index in
 * order (its indexes keep NULLs first), turning a 20-row page into a sort of
 * the whole table.
 */
export function compileOrderBy(ctx: SqlHooksContext, columns: readonly OrderColumn[], order: readonly OrderKey[], reverse: boolean): string {
  return columns
    .flatMap((column, i) => {
      const key = order[i];
      if (key === undefined) throw new Error('order key/column mismatch');
      const ascending = (key.direction === 'asc') !== reverse;
      const direction = !column.nullable ? (ascending ? 'ASC' : 'DESC') : ascending ? 'ASC NULLS LAST' : 'DESC NULLS FIRST';
      return sortTerms(ctx, column).map((term) => `${term} ${direction}`);
    })
    .join(', ');
}

/** The rows being ordered: the target type at `alias`, and (many-to-many) the link column equal to its id. */
export interface OrderedSource {
  readonly target: ResourceType;
  readonly alias: string;
  readonly linkedId?: string | undefined;
}

export function orderColumns(ctx: SqlContext, source: OrderedSource, order: readonly OrderKey[]): OrderColumn[] {
  return order.map((key) => {
    if (key.field === 'id' && source.linkedId !== undefined) return { expr: source.linkedId, nullable: false, id: true };
    const field = ctx.field(source.target, key.field);
    const nullable = field.kind === 'scalar' || field.kind === 'toOne' || field.kind === 'file' ? field.nullable : true;
    return { expr: columnOf(ctx, source.target, source.alias, key.field), nullable, id: isIdField(field) };
  });
}

/** The name a page's rows give their i-th order key: `o0`, `o1`, … */
export const orderKeyColumn = (i: number): string => `o${i}`;

/** The same keys read from a derived table's `o0, o1, …` columns. */
export function derivedOrderColumns(alias: string, columns: readonly OrderColumn[]): OrderColumn[] {
  return columns.map((column, i) => ({ expr: `${alias}.${orderKeyColumn(i)}`, nullable: column.nullable, id: column.id }));
}

/**
 * Rows strictly after (`forward`) or before the cursor in the list's order:
 * `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR …`, written out per key because
 * row-value comparison cannot mix directions or handle NULLs.
 */
export function compileKeyset(
  ctx: SqlContext,
  columns: readonly OrderColumn[],
  order: readonly OrderKey[],
  cursor: Cursor,
  forward: boolean,
): string {
  if (cursor.values.length !== order.length) throw new Error('cursor does not match the order');
  const branches: string[] = [];
  for (let i = 0; i < order.length; i++) {
    // Decided before the equalities take their params: a param taken for a branch left out has no placeholder.
    if (nothingBeyond(order[i] as OrderKey, cursor, i, forward)) continue;
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(equals(ctx, columns, cursor, j));
    parts.push(beyondKey(ctx, columns[i] as OrderColumn, order[i] as OrderKey, cursor, i, forward));
    branches.push(parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`);
  }
  return branches.length === 0 ? '1=0' : `(${branches.join(' OR ')})`;
}

function equals(ctx: SqlContext, columns: readonly OrderColumn[], cursor: Cursor, i: number): string {
  const column = (columns[i] as OrderColumn).expr;
  return cursor.nulls[i] ? `${column} IS NULL` : `${column} = ${ctx.param(cursor.values[i] as Cursor['values'][number])}`;
}

/** Travelling towards larger values from a NULL key: NULL sorts largest, so no row is past it on this key. */
function nothingBeyond(key: OrderKey, cursor: Cursor, i: number, forward: boolean): boolean {
  return cursor.nulls[i] === true && (key.direction === 'asc') === forward;
}

/** The condition "strictly past v in the travel direction" (never called where `nothingBeyond`). */
function beyondKey(ctx: SqlContext, orderColumn: OrderColumn, key: OrderKey, cursor: Cursor, i: number, forward: boolean): string {
  const { expr: column, nullable } = orderColumn;
  // Travelling towards larger values (NULL being the largest)?
  const upward = (key.direction === 'asc') === forward;
  const isNull = cursor.nulls[i] === true;
  if (orderColumn.id) return compareIds(ctx, column, upward ? '>' : '<', cursor.values[i] as Cursor['values'][number]);
  if (upward) {
    const value = ctx.param(cursor.values[i] as Cursor['values'][number]);
    // A bare comparison on a NOT NULL column lets the database seek its index.
    return nullable ? `(${column} > ${value} OR ${column} IS NULL)` : `${column} > ${value}`;
  }
  if (isNull) return `${column} IS NOT NULL`;
  return `${column} < ${ctx.param(cursor.values[i] as Cursor['values'][number])}`;
}
