import { matchesFilter } from './match-filter.js';
import type { Filter, ListResult, ReadNode, ReadPlan, Selection } from './read-plan.js';

/**
 * A list plan answered from one record image (an event's REST
 * representation) instead of its table: how a change-event subscription
 * shows the record exactly as the change left it, or, for a delete, as the
 * subscriber could read it just before. The plan's filter (the
 * subscription's, with the subscriber's row rule) and its field masks are
 * evaluated on the image (plan/match-filter.ts, which answers as SQL
 * would); a to-one relation is read now, through `readOne`, with its own
 * rules. What the image cannot answer is found up front (`imageReadProblem`).
 */
export async function readImage(plan: ReadPlan, image: Readonly<Record<string, unknown>>, readOne: (plan: ReadPlan) => Promise<string | null>): Promise<ListResult> {
  const { node } = plan.root;
  const matches = plan.root.kind === 'list' && (plan.root.node.filter === undefined || matchesFilter(plan.root.node.filter, plan.params, image));
  if (!matches) return listOf([]);
  return listOf([await objectOf(plan, node, image, readOne)]);
}

/**
 * Why `plan` cannot be answered from a record image, or undefined when it
 * can: a list of the record's own (its relations went with it, or changed
 * since), and a rule that looks through a relation (`order.customer ==
 * auth.id`), which no image holds.
 */
export function imageReadProblem(plan: ReadPlan): string | undefined {
  if (plan.root.kind !== 'list' || plan.root.parent !== undefined) return 'only a root list can be read from an image';
  const { node } = plan.root;
  if (node.filter !== undefined && joins(node.filter)) return `the filter or the read rule of ${node.type} looks through a relation, which a deleted record no longer has`;
  for (const selection of node.select) {
    if (selection.kind === 'toMany' || selection.kind === 'count') return `${node.type}.${selection.field} lists records that may have gone with it; select its own fields and to-one relations`;
    if ('mask' in selection && selection.mask !== undefined && joins(selection.mask)) return `the read rule of ${node.type}.${selection.field} looks through a relation`;
  }
  return undefined;
}

async function objectOf(plan: ReadPlan, node: ReadNode, image: Readonly<Record<string, unknown>>, readOne: (plan: ReadPlan) => Promise<string | null>): Promise<string> {
  const members: string[] = [];
  for (const selection of node.select) members.push(`${JSON.stringify(selection.key)}:${await valueOf(plan, selection, image, readOne)}`);
  return `{${members.join(',')}}`;
}

async function valueOf(plan: ReadPlan, selection: Selection, image: Readonly<Record<string, unknown>>, readOne: (plan: ReadPlan) => Promise<string | null>): Promise<string> {
  switch (selection.kind) {
    case 'constant':
      return JSON.stringify(selection.value);
    case 'withheld':
    case 'cursor':
      return 'null';
    case 'column':
      return shown(plan, selection.mask, image) ? JSON.stringify(image[selection.field] ?? null) : 'null';
    case 'file': {
      const url = image[selection.field];
      if (typeof url !== 'string' || !shown(plan, selection.mask, image)) return 'null';
      // The same URL the read compiler builds: `/files/<key>`, and `/<size>` for an image variant.
      return JSON.stringify(selection.size === undefined ? url : `${url}/${String(plan.params[selection.size.param])}`);
    }
    case 'toOne': {
      const id = image[selection.field];
      if (typeof id !== 'string' || !shown(plan, selection.mask, image)) return 'null';
      const related: ReadPlan = { kind: 'read', root: { kind: 'one', node: selection.node, id: { param: plan.params.length } }, params: [...plan.params, id], deprecations: plan.deprecations };
      return (await readOne(related)) ?? 'null';
    }
    case 'toMany':
    case 'count':
      throw new Error(`${selection.field} cannot be read from an image (imageReadProblem refuses it)`);
  }
}

function shown(plan: ReadPlan, mask: Filter | undefined, image: Readonly<Record<string, unknown>>): boolean {
  return mask === undefined || matchesFilter(mask, plan.params, image);
}

function joins(filter: Filter): boolean {
  switch (filter.op) {
    case 'related':
      return true;
    case 'and':
    case 'or':
      return filter.items.some(joins);
    case 'not':
      return joins(filter.item);
    default:
      return false;
  }
}

function listOf(objects: readonly string[]): ListResult {
  return { json: `[${objects.join(',')}]`, count: objects.length, hasMore: false, startKey: undefined, endKey: undefined, totalCount: undefined };
}
