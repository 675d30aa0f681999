import type { ManyToManyRelation, ResourceType, ScalarField, ToManyRelation } from '../../schema/model.js';
import { orderSignature } from '../../plan/cursor.js';
import type { Filter, ListNode, OrderKey, ReadNode, Selection } from '../../plan/read-plan.js';
import type { JsonMember } from '../dialect.js';
import { columnOf, compileFilter } from './compile-filter.js';
import { compileKeyset, compileOrderBy, derivedOrderColumns, orderColumns, orderKeyColumn, type OrderColumn } from './compile-order.js';
import { sqlString, type SqlContext } from './sql-context.js';

/**
 * The JSON object for one record of `node.type` at `alias`. Nested relations
 * become correlated subqueries that build their JSON in the database, so the
 * whole tree is one statement (the technique Hasura and PostgREST use).
 */
export function compileObject(ctx: SqlContext, node: ReadNode, alias: string, order?: readonly OrderKey[]): string {
  return ctx.sql.jsonObject(compileMembers(ctx, node, alias, order));
}

function compileMembers(ctx: SqlContext, node: ReadNode, alias: string, order?: readonly OrderKey[]): JsonMember[] {
  const type = ctx.type(node.type);
  return node.select.map((selection): JsonMember => [selection.key, compileSelection(ctx, type, alias, selection, order), memberKind(ctx, type, selection)]);
}

/** What `jsonObject` needs to know of a member's value: nested JSON, a JSON column's value, or a plain value. */
function memberKind(ctx: SqlContext, type: ResourceType, selection: Selection): JsonMember[2] {
  if (selection.kind === 'toOne' || selection.kind === 'toMany') return 'embedded';
  if (selection.kind !== 'column') return undefined;
  const field = ctx.field(type, selection.field);
  if (field.kind !== 'scalar') return undefined;
  if (field.list || field.scalar === 'JSON') return 'json';
  return field.scalar === 'DateTime' ? 'timestamp' : undefined;
}

function compileSelection(ctx: SqlContext, type: ResourceType, alias: string, selection: Selection, order: readonly OrderKey[] | undefined): string {
  switch (selection.kind) {
    case 'constant':
      return sqlString(selection.value);
    case 'withheld':
      return 'NULL';
    case 'cursor': {
      if (order === undefined) return 'NULL';
      // Same JSON as encodeCursor: [signature, ...values], timestamps as ISO text.
      const values = order.map((key) => {
        const field = ctx.field(type, key.field);
        const ref = columnOf(ctx, type, alias, key.field);
        return field.kind === 'scalar' && field.scalar === 'DateTime' ? ctx.sql.jsonTimestamp(ref) : ref;
      });
      return ctx.sql.cursorHex([sqlString(orderSignature(order)), ...values]);
    }
    case 'column': {
      const field = ctx.field(type, selection.field);
      if (field.kind === 'toOne') return masked(ctx, type, alias, selection.mask, ctx.ref(alias, field.column));
      if (field.kind !== 'scalar') throw new Error(`${type.name}.${selection.field} is not a column`);
      return jsonColumn(ctx, field, masked(ctx, type, alias, selection.mask, ctx.ref(alias, field.column)));
    }
    case 'file': {
      const field = ctx.field(type, selection.field);
      if (field.kind !== 'file') throw new Error(`${type.name}.${selection.field} is not a file`);
      // NULL propagates through concatenation, so a record without a picture yields null.
      const parts = [sqlString('/files/'), masked(ctx, type, alias, selection.mask, ctx.ref(alias, field.column))];
      if (selection.size !== undefined) parts.push(sqlString('/'), ctx.param(selection.size));
      return ctx.sql.concat(parts);
    }
    case 'toOne': {
      const field = ctx.field(type, selection.field);
      if (field.kind !== 'toOne') throw new Error(`${type.name}.${selection.field} is not a to-one relation`);
      const target = ctx.type(field.target);
      const inner = ctx.alias();
      const object = compileObject(ctx, selection.node, inner);
      const link = `${ctx.ref(inner, 'id')} = ${ctx.ref(alias, field.column)}`;
      const conditions = [link, ...ruleOf(ctx, target, inner, selection.node.rule), ...ruleOf(ctx, type, alias, selection.mask)];
      // No row (a dangling or null reference, or one the asker may not see) is JSON null.
      return `coalesce((SELECT ${object} FROM ${ctx.table(target)} ${inner} WHERE ${conditions.join(' AND ')}), 'null')`;
    }
    case 'toMany':
      return compileNestedList(ctx, type, alias, selection.field, selection.node, selection.mask);
    case 'count': {
      const source = relationSource(ctx, type, alias, selection.field);
      const link = source.link?.();
      const filter = selection.filter === undefined ? undefined : guardedFilter(ctx, source.alias, compileFilter(ctx, source.target, source.alias, selection.filter));
      return compileCount(source.from, link, filter);
    }
  }
}

/** A value shown only on the rows `mask` keeps (a field rule); NULL elsewhere. */
function masked(ctx: SqlContext, type: ResourceType, alias: string, mask: Filter | undefined, value: string): string {
  return mask === undefined ? value : `CASE WHEN ${compileFilter(ctx, type, alias, mask)} THEN ${value} END`;
}

/** A rule's row filter as WHERE conditions (none when every row passes). */
export function ruleOf(ctx: SqlContext, type: ResourceType, alias: string, rule: Filter | undefined): string[] {
  return rule === undefined ? [] : [compileFilter(ctx, type, alias, rule)];
}

/** A scalar column as a JSON value of the right JSON type on every dialect (a timestamp as it is: a `timestamp` member). */
function jsonColumn(ctx: SqlContext, field: ScalarField, ref: string): string {
  if (field.list || field.scalar === 'JSON') return ctx.sql.jsonValue(ref);
  if (field.scalar === 'Boolean') return ctx.sql.jsonBoolean(ref);
  if (field.scalar === 'Float') return ctx.sql.jsonFloat(ref);
  return ref;
}

export interface RelationSource {
  readonly target: ResourceType;
  readonly alias: string;
  /** FROM clause (target table, joined to the link table for many-to-many). */
  readonly from: string;
  /**
   * Condition tying target rows to the parent id (none for a root list),
   * rendered where the text uses it: SQLite's placeholders are positional,
   * so a parent id bound as a param must be registered in text order.
   */
  readonly link: (() => string) | undefined;
  /**
   * Many-to-many: the link table's column holding the target's id. Ordering
   * by it instead of the target's own id is the same order, but one the link
   * table's primary key (owner, other) already holds, so a page of a
   * thousand followers is read in order and stops at the limit, unsorted.
   */
  readonly linkedId?: string;
}

/** The rows of relation `fieldName` of the record whose id is `parentId()` (an SQL expression, rendered with the link). */
export function relationRows(ctx: SqlContext, type: ResourceType, fieldName: string, parentId: () => string): RelationSource {
  const field = ctx.field(type, fieldName);
  if (field.kind !== 'toMany' && field.kind !== 'manyToMany') throw new Error(`${type.name}.${fieldName} is not a list relation`);
  return listRelationRows(ctx, field, parentId);
}

function listRelationRows(ctx: SqlContext, field: ToManyRelation | ManyToManyRelation, parentId: () => string): RelationSource {
  const target = ctx.type(field.target);
  const alias = ctx.alias();
  if (field.kind === 'toMany') {
    return { target, alias, from: `${ctx.table(target)} ${alias}`, link: () => `${ctx.ref(alias, field.foreignKey)} = ${parentId()}` };
  }
  const join = ctx.alias();
  return {
    target,
    alias,
    from: `${ctx.table(target)} ${alias} JOIN ${ctx.joinTable(field.joinTable)} ${join} ON ${ctx.ref(join, field.otherColumn)} = ${ctx.ref(alias, 'id')}`,
    link: () => `${ctx.ref(join, field.ownColumn)} = ${parentId()}`,
    linkedId: ctx.ref(join, field.otherColumn),
  };
}

function relationSource(ctx: SqlContext, type: ResourceType, alias: string, fieldName: string): RelationSource {
  return relationRows(ctx, type, fieldName, () => ctx.ref(alias, 'id'));
}

/**
 * `SELECT j, o0, o1 … FROM … WHERE … ORDER BY … LIMIT n + 1`: the page of
 * rows, each with its JSON and its order-key values (for the page's
 * cursors), and one row more when there is a next page.
 */
export function compilePageRows(ctx: SqlContext, source: RelationSource, node: ListNode): string {
  const columns = orderColumns(ctx, source, node.order);
  const object = compileObject(ctx, node, source.alias, node.order);
  const where = pageConditions(ctx, source, node, columns);
  const keys = columns.map((column, i) => `${column.expr} AS ${orderKeyColumn(i)}`).join(', ');
  // Params are positional on SQLite: registered in the order the text uses them.
  const limit = `${ctx.param(node.page.limit)} + 1`;
  return selectPage(`${object} AS j, ${keys}`, source, where, compileOrderBy(ctx, columns, node.order, node.page.fromEnd), limit);
}

function selectPage(select: string, source: RelationSource, where: readonly string[], orderBy: string, limit: string): string {
  return `SELECT ${select} FROM ${source.from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT ${limit}`;
}

/** What keeps a page's rows: the parent link, the filter, and the cursors' keyset conditions. */
function pageConditions(ctx: SqlContext, source: RelationSource, node: ListNode, columns: readonly OrderColumn[], parentMask?: () => string[]): string[] {
  const where: string[] = [];
  if (source.link !== undefined) where.push(source.link());
  // Unfiltered pages in the default order walk an index and stop at their limit; a filter or a sort may scan.
  const guard = node.filter !== undefined || node.order.length > 1 ? ctx.sql.scanGuard?.(source.alias) : undefined;
  // Before the filter: a row the filter rejects must still pass the guard.
  if (guard !== undefined) where.push(guard);
  if (node.filter !== undefined) where.push(compileFilter(ctx, source.target, source.alias, node.filter));
  const { page } = node;
  if (page.after !== undefined) where.push(compileKeyset(ctx, columns, node.order, page.after, true));
  if (page.before !== undefined) where.push(compileKeyset(ctx, columns, node.order, page.before, false));
  if (parentMask !== undefined) where.push(...parentMask());
  return where;
}

/**
 * A relation's page as a JSON array, its rows gathered by the dialect's
 * `jsonArray` from `SELECT object AS j … ORDER BY … LIMIT n` (SQLite's
 * `(SELECT agg(j) FROM (…) d)`, PostgreSQL's `ARRAY(…)`). The page leaves
 * its subquery in order (an ORDER BY with a LIMIT, which neither database
 * merges into what gathers it), so its order is kept without sorting
 * again, as PostgREST's embedding does; only a page read from the end
 * (`last: n`) arrives backwards and is turned round on the order keys the
 * page selects beside its JSON.
 *
 * Each object is built inside the page, not in the aggregate from columns
 * the page passes up: that copy of every column through the subquery cost
 * SQLite a fifth of a statement (bench/HISTORY.md). Neither database builds objects for rows the page drops
 * when it must sort: PostgreSQL evaluates costly output after the sort
 * under a LIMIT, and SQLite only for rows that enter its top-n sorter.
 */
function compileNestedList(ctx: SqlContext, type: ResourceType, alias: string, fieldName: string, node: ListNode, mask: Filter | undefined): string {
  const source = relationSource(ctx, type, alias, fieldName);
  const derived = ctx.alias();
  // Compiled first: its parameters come first in the text.
  const members = compileMembers(ctx, node, source.alias, node.order);
  const columns = orderColumns(ctx, source, node.order);
  const { fromEnd } = node.page;
  const keys = fromEnd ? columns.map((column, i) => `, ${column.expr} AS ${orderKeyColumn(i)}`).join('') : '';
  // A list field the asker may see on some rows only is empty on the others.
  const where = pageConditions(ctx, source, node, columns, () => ruleOf(ctx, type, alias, mask));
  const orderBy = compileOrderBy(ctx, columns, node.order, fromEnd);
  const limit = ctx.param(node.page.limit);
  const order = fromEnd ? compileOrderBy(ctx, derivedOrderColumns(derived, columns), node.order, false) : '';
  return ctx.sql.jsonArray({ members, rows: (element) => selectPage(`${element} AS j${keys}`, source, where, orderBy, limit), derived, order });
}

/** A filter for a count: a filtered count visits every row it considers, so it carries the dialect's scan guard first. */
export function guardedFilter(ctx: SqlContext, alias: string, filter: string): string {
  const guard = ctx.sql.scanGuard?.(alias);
  return guard === undefined ? filter : `${guard} AND ${filter}`;
}

/** Used by the total count of a root list: the same rows without paging. */
export function compileCount(from: string, link: string | undefined, filter: string | undefined): string {
  const where = [link, filter].filter((part): part is string => part !== undefined);
  return `(SELECT count(*) FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''})`;
}
