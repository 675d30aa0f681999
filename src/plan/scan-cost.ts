import type { Field, Model, ResourceType } from '../schema/model.js';
import { planCost } from './limits.js';
import type { Filter, ListNode, ReadNode, ReadPlan } from './read-plan.js';
import { isRowRule } from './read-rules.js';

/** Estimated rows in a table (the storage layer's cached estimate; 0 when unknown). */
export type TableRows = (table: string) => number;

/**
 * What a read plan costs, in rows: the rows it may return (planCost, what
 * maxCost limits) plus the rows it may scan to find them. A question an
 * index answers scans about what it returns; one it does not — a filter no
 * index serves (`contains`, `ne`, a field without an index), a count over a
 * whole table, a root list sorted on a field without an index — may read
 * every row of the table, so it costs the table's estimated size. A
 * relation's records are reached through its foreign-key index: there an
 * unindexed filter scans the related rows, estimated as the table's rows
 * per parent record. Row rules are the schema's, not the asker's, and are
 * not counted (a page of a list under a rule stops at `limit` matching rows). The same function charges REST and GraphQL, reads and live
 * re-runs alike (engine/request-meter.ts).
 */
export function readPlanCost(model: Model, plan: ReadPlan, rows: TableRows): number {
  return planCost(plan) + scannedRows(model, plan, rows);
}

/** Rows `plan` may scan beyond what it returns. */
export function scannedRows(model: Model, plan: ReadPlan, rows: TableRows): number {
  const { root } = plan;
  const type = typeOf(model, root.node.type);
  let scanned = 0;
  if (root.kind === 'list') {
    const own = asked(root.node.filter);
    if (root.parent === undefined) {
      // The whole table: a count reads every row it counts; an unindexed filter or sort may read them all to fill a page.
      const served = servedByIndex(type, own);
      if ((root.totalCount && served !== 'indexed') || served === 'scan' || !sortedByIndex(type, root.node)) scanned += rows(type.table);
    } else if (servedByIndex(type, own) === 'scan') {
      scanned += relatedRows(model, typeOf(model, root.parent.type), root.parent.field, rows);
    }
  }
  return scanned + nodeScans(model, plan, root.node, rows, root.kind === 'list' ? pageRows(plan, root.node) : 1);
}

/** Rows the relations under `node` may scan, for `records` records of it. */
function nodeScans(model: Model, plan: ReadPlan, node: ReadNode, rows: TableRows, records: number): number {
  const type = typeOf(model, node.type);
  let scanned = 0;
  for (const selection of node.select) {
    if (selection.kind === 'count') {
      const target = typeOf(model, relationTarget(type, selection.field));
      if (servedByIndex(target, asked(selection.filter)) === 'scan') scanned += records * relatedRows(model, type, selection.field, rows);
    } else if (selection.kind === 'toOne') {
      scanned += nodeScans(model, plan, selection.node, rows, records);
    } else if (selection.kind === 'toMany') {
      const target = typeOf(model, selection.node.type);
      if (servedByIndex(target, asked(selection.node.filter)) === 'scan') scanned += records * relatedRows(model, type, selection.field, rows);
      scanned += nodeScans(model, plan, selection.node, rows, records * pageRows(plan, selection.node));
    }
  }
  return scanned;
}

/** The asker's own conditions: the planner puts the row rule last, in an `and` with them (plan/read-rules.ts `both`). */
function asked(filter: Filter | undefined): Filter | undefined {
  if (filter === undefined || isRowRule(filter)) return undefined;
  if (filter.op === 'and' && filter.items.length === 2 && isRowRule(filter.items[1] as Filter)) return filter.items[0];
  return filter;
}

type Served = 'none' | 'indexed' | 'scan';

/** Whether an index can find the rows `filter` keeps (or there is no filter). */
function servedByIndex(type: ResourceType, filter: Filter | undefined): Served {
  if (filter === undefined) return 'none';
  return indexed(type, filter) ? 'indexed' : 'scan';
}

/**
 * An equality, a set or a range on a field that leads an index is a lookup;
 * an `and` is one when any of its conditions is (the rest are checked on the
 * rows found), an `or` when all are. `contains`, `startsWith` (not every
 * collation can use an index for it), `ne`, `not` and conditions on related
 * records are checked row by row.
 */
function indexed(type: ResourceType, filter: Filter): boolean {
  switch (filter.op) {
    case 'and':
      return filter.items.some((item) => indexed(type, item));
    case 'or':
      return filter.items.length > 0 && filter.items.every((item) => indexed(type, item));
    case 'eq':
    case 'in':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
    case 'isNull':
      return leadsIndex(type, filter.field);
    default:
      return false;
  }
}

/** A root list is read in index order when its first sort key leads an index (the id always does). */
function sortedByIndex(type: ResourceType, node: ListNode): boolean {
  const first = node.order[0];
  return first === undefined || leadsIndex(type, first.field);
}

function leadsIndex(type: ResourceType, name: string): boolean {
  const field: Field | undefined = type.fieldsByName.get(name);
  if (field === undefined) return false;
  if (field.kind === 'toOne') return true;
  if (field.kind === 'scalar' && (field.auto === 'id' || field.unique || field.indexed)) return true;
  return type.indexes.some((index) => index[0] === name);
}

/** Related rows one record of `type` has through `field`, on average: the relation's table over the parent table. */
function relatedRows(model: Model, type: ResourceType, name: string, rows: TableRows): number {
  const field = type.fieldsByName.get(name);
  if (field === undefined) return 0;
  const table = field.kind === 'manyToMany' ? field.joinTable : typeOf(model, relationTarget(type, name)).table;
  return Math.ceil(rows(table) / Math.max(1, rows(type.table)));
}

function relationTarget(type: ResourceType, name: string): string {
  const field = type.fieldsByName.get(name);
  if (field === undefined || (field.kind !== 'toMany' && field.kind !== 'manyToMany' && field.kind !== 'toOne')) throw new Error(`${type.name}.${name} is not a relation`);
  return field.target;
}

function typeOf(model: Model, name: string): ResourceType {
  const type = model.typesByName.get(name);
  if (type === undefined) throw new Error(`No resource type ${name}`);
  return type;
}

function pageRows(plan: ReadPlan, node: ListNode): number {
  return Number(plan.params[node.page.limit.param]);
}
