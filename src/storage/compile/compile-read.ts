import type { Model, ResourceType } from '../../schema/model.js';
import type { Filter, Param, ReadPlan, ReadRoot } from '../../plan/read-plan.js';
import type { SqlCompilerHooks } from '../dialect.js';
import { compileFilter } from './compile-filter.js';
import { compileOrderBy, orderKeyColumn } from './compile-order.js';
import { isIdField } from './id-order.js';
import { compileCount, compileObject, compilePageRows, guardedFilter, relationRows, ruleOf, type RelationSource } from './compile-select.js';
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
  /**
   * Root lists: `total` when every row carries the total count (an empty
   * page is then one row with a null `j`); `parent` how a sub-collection
   * (`/users/42/posts`) tells that its parent is missing: every row's
   * `parent_found` is 0 (`foundColumn`), or a row with a null `j` comes,
   * which the statement adds only then (`missingRow`).
   */
  readonly meta: { readonly parent: 'foundColumn' | 'missingRow' | undefined; readonly total: boolean };
  /** Root lists read backwards (`last:`): the engine reverses the rows. */
  readonly reversed: boolean;
}

/**
 * `rootFrom` (a root `one` only): read the root record from that relation, a
 * `WITH` clause of the statement the SQL will be part of, instead of finding
 * it by id in its table: a write reading back the row its own statement
 * wrote, which the rest of that statement cannot see in the table. With
 * `withId`, every row of that relation is read, each beside its `id` (the
 * images of the records a delete's cascade removes).
 */
export function compileRead(model: Model, hooks: SqlCompilerHooks, plan: ReadPlan, rootFrom?: string, withId = false): CompiledRead {
  const ctx = new SqlContext(model, hooks);
  const { root } = plan;
  if (root.kind === 'one') {
    const type = ctx.type(root.node.type);
    const alias = ctx.alias();
    const object = compileObject(ctx, root.node, alias);
    // A record the asker may not see reads as missing: a 404, never a 403 that would tell it exists.
    const from =
      rootFrom === undefined
        ? `${ctx.table(type)} ${alias} WHERE ${[`${ctx.ref(alias, 'id')} = ${ctx.param(root.id)}`, ...ruleOf(ctx, type, alias, root.node.rule)].join(' AND ')}`
        : `${hooks.quoteIdent(rootFrom)} ${alias}${root.node.rule === undefined ? '' : ` WHERE ${compileFilter(ctx, type, alias, root.node.rule)}`}`;
    const id = withId ? `, ${ctx.ref(alias, 'id')} AS id` : '';
    return finish(ctx, `SELECT ${object} AS j${id} FROM ${from}`, root.kind, 0, { parent: undefined, total: false }, false);
  }
  if (rootFrom !== undefined) throw new Error('only a root `one` can be read from a WITH clause');

  const type = ctx.type(root.node.type);
  const keyCount = root.node.order.length;
  const reversed = root.node.page.fromEnd;
  if (!root.totalCount) {
    const rows = compilePageRows(ctx, listSource(ctx, type, root), root.node);
    if (root.parent === undefined) return finish(ctx, rows, 'list', keyCount, { parent: undefined, total: false }, reversed);
    // A sub-collection: its page alone, which walks the relation's index and
    // stops at the limit. A row proves the parent exists (a foreign key holds
    // it there); a row of NULLs follows only when it does not.
    const parentType = ctx.type(root.parent.type);
    const nulls = Array.from({ length: keyCount + 1 }, () => 'NULL').join(', ');
    const sql =
      `SELECT * FROM (${rows}) p UNION ALL SELECT ${nulls} ` +
      `WHERE NOT EXISTS (${parentRow(ctx, parentType, root.parent, '1')})`;
    return finish(ctx, sql, 'list', keyCount, { parent: 'missingRow', total: false }, reversed);
  }
  const facts: string[] = [];
  if (root.parent !== undefined) {
    const parentType = ctx.type(root.parent.type);
    facts.push(`(${parentRow(ctx, parentType, root.parent, 'count(*)')}) AS parent_found`);
  }
  const counted = listSource(ctx, type, root);
  const link = counted.link?.();
  const filter = root.node.filter === undefined ? undefined : guardedFilter(ctx, counted.alias, compileFilter(ctx, counted.target, counted.alias, root.node.filter));
  facts.push(`${compileCount(counted.from, link, filter)} AS total`);

  // Placeholders are positional on SQLite, so SQL text is produced strictly
  // left to right: the facts first, then the page.
  // One row of facts LEFT JOINed to the page, so the facts arrive even when the page is empty.
  const rows = compilePageRows(ctx, listSource(ctx, type, root), root.node);
  const derived = ctx.alias();
  // After the LEFT JOIN every key may be NULL (the empty page's one row).
  const keys = root.node.order.map((key, i) => ({ expr: `${derived}.${orderKeyColumn(i)}`, nullable: true, id: isIdField(ctx.field(type, key.field)) }));
  const sql =
    `SELECT ${derived}.j AS j, ${keys.map((key) => key.expr).join(', ')}, m.* ` +
    `FROM (SELECT ${facts.join(', ')}) m LEFT JOIN (${rows}) ${derived} ON 1=1 ` +
    `ORDER BY ${compileOrderBy(ctx, keys, root.node.order, reversed)}`;
  return finish(ctx, sql, 'list', keyCount, { parent: root.parent === undefined ? undefined : 'foundColumn', total: true }, reversed);
}

/** `SELECT what` from the parent row of a sub-collection, if the asker may see it (one they may not is missing, as for `one`). */
function parentRow(ctx: SqlContext, parentType: ResourceType, parent: { readonly id: Param; readonly rule?: Filter }, what: string): string {
  const alias = ctx.alias();
  const conditions = [`${ctx.ref(alias, 'id')} = ${ctx.param(parent.id)}`, ...ruleOf(ctx, parentType, alias, parent.rule)];
  return `SELECT ${what} FROM ${ctx.table(parentType)} ${alias} WHERE ${conditions.join(' AND ')}`;
}

function listSource(ctx: SqlContext, type: ResourceType, root: Extract<ReadRoot, { kind: 'list' }>): RelationSource {
  const { parent } = root;
  // The parent id's param is taken when the page's WHERE is written, after the select list's own params.
  if (parent !== undefined) return relationRows(ctx, ctx.type(parent.type), parent.field, () => ctx.param(parent.id));
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
