import type { Model, ResourceType } from '../../schema/model.js';
import type { ReadPlan, ReadRoot } from '../../plan/read-plan.js';
import type { SqlCompilerHooks } from '../dialect.js';
import { compileFilter } from './compile-filter.js';
import { compileOrderBy, orderKeyColumn } from './compile-order.js';
import { compileCount, compileObject, compilePageRows, relationRows, type RelationSource } from './compile-select.js';
import { SqlContext } from './sql-context.js';

/**
 * A read plan compiled to one statement. It depends only on the plan's shape,
 * so it is cached by shape and rebound to each plan's params via `paramOrder`.
 *
 * Root lists come back as one row per record (JSON text plus order-key
 * values), joined into an array by the engine: it gives the cursors and the
 * "is there a next page" row for free. Everything below the root is built as
 * JSON by the database.
 */
export interface CompiledRead {
  readonly sql: string;
  readonly paramOrder: readonly number[];
  readonly tables: readonly string[];
  readonly root: ReadRoot['kind'];
  /** Root lists: the order-key columns of each row (`o0`, `o1`, …), in order. */
  readonly keyColumns: readonly string[];
  /** Root lists: every row carries `parent_found` / `total`; an empty page is one row with a null `j`. */
  readonly meta: { readonly parent: boolean; readonly total: boolean };
  /**
   * A sub-collection's page (`/users/42/posts`) is read on its own: a row
   * proves its parent exists (a foreign key holds it there), so only an
   * empty page runs this second statement, to tell "no parent" (404) from
   * "no rows". Joining the page to its parent row or to a count of it cost
   * more on both databases, and PostgreSQL's generic plan then sorted all
   * of the parent's rows instead of walking the index (docs/architecture.md).
   */
  readonly parentProbe?: { readonly sql: string; readonly paramOrder: readonly number[] };
  /** Root lists read backwards (`last:`): the engine reverses the rows. */
  readonly reversed: boolean;
}

/**
 * `rootFrom` (a root `one` only): read the root record from that relation, a
 * `WITH` clause of the statement the SQL will be part of, instead of finding
 * it by id in its table: a write reading back the row its own statement
 * wrote, which the rest of that statement cannot see in the table.
 */
export function compileRead(model: Model, hooks: SqlCompilerHooks, plan: ReadPlan, rootFrom?: string): CompiledRead {
  const ctx = new SqlContext(model, hooks);
  const { root } = plan;
  if (root.kind === 'one') {
    const type = ctx.type(root.node.type);
    const alias = ctx.alias();
    const object = compileObject(ctx, root.node, alias);
    const from = rootFrom === undefined ? `${ctx.table(type)} ${alias} WHERE ${ctx.ref(alias, 'id')} = ${ctx.param(root.id)}` : `${hooks.quoteIdent(rootFrom)} ${alias}`;
    return finish(ctx, `SELECT ${object} AS j FROM ${from}`, root.kind, 0, { parent: false, total: false }, false);
  }
  if (rootFrom !== undefined) throw new Error('only a root `one` can be read from a WITH clause');

  const type = ctx.type(root.node.type);
  const keyCount = root.node.order.length;
  const reversed = root.node.page.fromEnd;
  if (!root.totalCount) {
    // The page alone: a sub-collection's walks the relation's index and stops at the limit.
    const rows = compilePageRows(ctx, listSource(ctx, type, root), root.node);
    const probe = root.parent === undefined ? undefined : parentProbe(ctx, root.parent);
    const compiled = finish(ctx, rows, 'list', keyCount, { parent: false, total: false }, reversed);
    return probe === undefined ? compiled : Object.freeze({ ...compiled, parentProbe: probe });
  }
  const facts: string[] = [];
  if (root.parent !== undefined) {
    const parentType = ctx.type(root.parent.type);
    facts.push(`(SELECT count(*) FROM ${ctx.table(parentType)} WHERE ${hooks.quoteIdent('id')} = ${ctx.param(root.parent.id)}) AS parent_found`);
  }
  const counted = listSource(ctx, type, root);
  const filter = root.node.filter === undefined ? undefined : compileFilter(ctx, counted.target, counted.alias, root.node.filter);
  facts.push(`${compileCount(counted.from, counted.link, filter)} AS total`);

  // Placeholders are positional on SQLite, so SQL text is produced strictly
  // left to right: the facts first, then the page.
  // One row of facts LEFT JOINed to the page, so the facts arrive even when the page is empty.
  const rows = compilePageRows(ctx, listSource(ctx, type, root), root.node);
  const derived = ctx.alias();
  // After the LEFT JOIN every key may be NULL (the empty page's one row).
  const keys = Array.from({ length: keyCount }, (_, i) => ({ expr: `${derived}.${orderKeyColumn(i)}`, nullable: true }));
  const sql =
    `SELECT ${derived}.j AS j, ${keys.map((key) => key.expr).join(', ')}, m.* ` +
    `FROM (SELECT ${facts.join(', ')}) m LEFT JOIN (${rows}) ${derived} ON 1=1 ` +
    `ORDER BY ${compileOrderBy(keys, root.node.order, reversed)}`;
  return finish(ctx, sql, 'list', keyCount, { parent: root.parent !== undefined, total: true }, reversed);
}

/** `SELECT 1 … WHERE id = ?` on the parent's table, which counts among those the answer reads (its ETag). */
function parentProbe(ctx: SqlContext, parent: NonNullable<Extract<ReadRoot, { kind: 'list' }>['parent']>): CompiledRead['parentProbe'] {
  const table = ctx.table(ctx.type(parent.type));
  const sql = `SELECT 1 AS found FROM ${table} WHERE ${ctx.sql.quoteIdent('id')} = ${ctx.sql.placeholder(0)}`;
  return { sql, paramOrder: Object.freeze([parent.id.param]) };
}

function listSource(ctx: SqlContext, type: ResourceType, root: Extract<ReadRoot, { kind: 'list' }>): RelationSource {
  if (root.parent !== undefined) return relationRows(ctx, ctx.type(root.parent.type), root.parent.field, ctx.param(root.parent.id));
  const alias = ctx.alias();
  return { target: type, alias, from: `${ctx.table(type)} ${alias}`, link: undefined };
}

function finish(
  ctx: SqlContext,
  sql: string,
  root: ReadRoot['kind'],
  keyCount: number,
  meta: CompiledRead['meta'],
  reversed: boolean,
): CompiledRead {
  return Object.freeze({
    sql,
    paramOrder: Object.freeze([...ctx.paramOrder]),
    tables: Object.freeze([...ctx.tables].sort()),
    root,
    keyColumns: Object.freeze(Array.from({ length: keyCount }, (_, i) => orderKeyColumn(i))),
    meta,
    reversed,
  });
}
