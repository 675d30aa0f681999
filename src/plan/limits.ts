import { ApiError } from '../errors/api-error.js';
import type { ListNode, ReadNode, ReadPlan } from './read-plan.js';

/**
 * How much one request may ask for, checked on the read plan itself, so a
 * REST `include=` chain and the same GraphQL selection meet the same limits
 * with the same figures, before any SQL runs.
 */
export interface PlanLimits {
  /** Rows in a page when the client does not say. */
  readonly defaultPageSize: number;
  /** The hard maximum of any page, at any depth. */
  readonly maxPageSize: number;
  /** Levels of records, the root's included: `/users?include=posts.author` is 3. */
  readonly maxDepth: number;
  /** Embedded relations in one request, however they nest. */
  readonly maxRelations: number;
  /** Estimated rows: a list costs its page size times what each of its records holds. */
  readonly maxCost: number;
}

export const DEFAULT_LIMITS: PlanLimits = Object.freeze({ defaultPageSize: 20, maxPageSize: 100, maxDepth: 12, maxRelations: 40, maxCost: 50_000 });

/** Defaults filled in and every value checked, once, where options are read. */
export function resolvePlanLimits(partial: Partial<PlanLimits> = {}): PlanLimits {
  const limits: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(partial) as [string, unknown][]) {
    if (!(key in DEFAULT_LIMITS)) throw new Error(`Unknown limit "${key}"; known: ${Object.keys(DEFAULT_LIMITS).join(', ')}`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`Limit ${key} must be a positive integer`);
    limits[key] = value;
  }
  if ((limits['defaultPageSize'] as number) > (limits['maxPageSize'] as number)) throw new Error('Limit defaultPageSize must not exceed maxPageSize');
  return Object.freeze(limits as unknown as PlanLimits);
}

/**
 * Called as the planner enters an embedded relation, with the level the
 * relation's records are at and the relations embedded so far: a hostile
 * request is refused at its first overstep, before more of it is built.
 */
export function checkNesting(depth: number, relations: number, limits: PlanLimits): void {
  if (depth > limits.maxDepth) {
    throw new ApiError('QUERY_TOO_COMPLEX', {
      detail: `This query nests records more than ${limits.maxDepth} levels deep; the limit is ${limits.maxDepth} (maxDepth).`,
      extensions: { limit: 'maxDepth', maximum: limits.maxDepth },
    });
  }
  if (relations > limits.maxRelations) {
    throw new ApiError('QUERY_TOO_COMPLEX', {
      detail: `This query embeds more than ${limits.maxRelations} relations; the limit is ${limits.maxRelations} (maxRelations).`,
      extensions: { limit: 'maxRelations', maximum: limits.maxRelations },
    });
  }
}

/**
 * Rows a plan may read: a list costs its page size times (its row plus what
 * each record embeds), a to-one relation its row plus what it embeds, a
 * count one. So the cost multiplies down nested lists, which is what makes
 * them expensive.
 */
export function planCost(plan: ReadPlan): number {
  const { root } = plan;
  const rows = root.kind === 'one' ? 1 : pageRows(plan, root.node);
  return rows * (1 + nodeCost(plan, root.node));
}

/** Throws QUERY_TOO_COMPLEX when a request (one plan, or a GraphQL operation's plans together) may read more rows than allowed. */
export function checkCost(cost: number, limits: PlanLimits): void {
  if (cost <= limits.maxCost) return;
  const shown = cost > 1e9 ? 'more than a billion' : String(Math.round(cost));
  throw new ApiError('QUERY_TOO_COMPLEX', {
    detail: `This query may read about ${shown} rows; the limit is ${limits.maxCost} (maxCost). Ask for smaller pages or less nesting.`,
    extensions: { limit: 'maxCost', maximum: limits.maxCost },
  });
}

/** Rows read for one record of `node`, beyond the record itself. */
function nodeCost(plan: ReadPlan, node: ReadNode): number {
  let cost = 0;
  for (const selection of node.select) {
    if (selection.kind === 'count') cost += 1;
    else if (selection.kind === 'toOne') cost += 1 + nodeCost(plan, selection.node);
    else if (selection.kind === 'toMany') cost += pageRows(plan, selection.node) * (1 + nodeCost(plan, selection.node));
  }
  return cost;
}

function pageRows(plan: ReadPlan, node: ListNode): number {
  return Number(plan.params[node.page.limit.param]);
}
