import { getArgumentValues, type FieldNode, type GraphQLObjectType } from 'graphql';
import type { FieldRequest, ListArgs, PlanLimits } from '../../plan/build-read.js';
import type { FilterInput } from '../../plan/build-filter.js';
import { checkNesting } from '../../plan/limits.js';
import type { OrderKey } from '../../plan/read-plan.js';
import type { GeneratedSchema } from '../schema/roles.js';
import { collectFields, type OperationScope } from './collect-fields.js';

export interface SelectionContext extends OperationScope {
  readonly generated: GeneratedSchema;
  /** The plan's depth and relation limits, applied while fragments are expanded (see buildSelection). */
  readonly limits: PlanLimits;
  /** Field requests built so far for the whole operation: what a refused operation is charged. */
  readonly work: ExpansionWork;
}

export interface ExpansionWork {
  nodes: number;
}

/** One root field's expansion: the relations entered so far, as the planner counts them. */
interface Expansion {
  relations: number;
}

/**
 * A root field's selection as the planner's `FieldRequest`s (the planner
 * checks depth, breadth and cost: plan/limits.ts). Fragments spreading one
 * another expand into a tree exponential in the document's size (fourteen
 * fragments, each spreading the next three times, are 3^14 relations from
 * 1.7 KB), so the planner's depth and relation limits are checked here too,
 * as each relation is entered, with the same figures and message: the
 * expansion stops at the first overstep, after at most `maxRelations`
 * relations' worth of work.
 */
export function buildSelection(ctx: SelectionContext, typeName: string, parents: readonly FieldNode[]): FieldRequest[] {
  return expand(ctx, { relations: 0 }, typeName, parents, 1);
}

function expand(ctx: SelectionContext, expansion: Expansion, typeName: string, parents: readonly FieldNode[], depth: number): FieldRequest[] {
  const type = ctx.schema.getType(typeName) as GraphQLObjectType;
  const roles = ctx.generated.objects.get(typeName);
  if (roles === undefined) throw new Error(`No field roles for ${typeName}`);
  const sets = parents.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
  const select: FieldRequest[] = [];
  for (const [key, nodes] of collectFields(ctx, type, sets)) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    ctx.work.nodes += 1;
    if (name === '__typename') {
      select.push({ key, typename: true });
      continue;
    }
    const role = roles.get(name);
    const definition = type.getFields()[name];
    if (role === undefined || definition === undefined) throw new Error(`Validated field ${typeName}.${name} has no role`);
    switch (role.kind) {
      case 'value':
        select.push({ key, field: role.field });
        break;
      case 'file': {
        const args = getArgumentValues(definition, node, ctx.variables);
        select.push({ key, field: role.field, size: optionalInt(args['size']) });
        break;
      }
      case 'toOne': {
        select.push({ key, field: role.field, select: expand(ctx, expansion, role.target.name, nodes, enter(ctx, expansion, depth)) });
        break;
      }
      case 'list': {
        const list = listArgsOf(getArgumentValues(definition, node, ctx.variables));
        select.push({ key, field: role.field, select: expand(ctx, expansion, role.target.name, nodes, enter(ctx, expansion, depth)), list });
        break;
      }
      case 'count': {
        const args = getArgumentValues(definition, node, ctx.variables);
        select.push({ key, countOf: role.field, filter: filterOf(args['filter']) });
        break;
      }
      case 'cursor':
        select.push({ key, cursor: true });
        break;
    }
  }
  return select;
}

/** The level of a relation's records, once the limits allow it (the planner's `enter`, counted the same way). */
function enter(ctx: SelectionContext, expansion: Expansion, depth: number): number {
  expansion.relations += 1;
  checkNesting(depth + 1, expansion.relations, ctx.limits);
  return depth + 1;
}

/** Coerced list arguments in the planner's terms; a GraphQL `null` means "not given". */
export function listArgsOf(args: Readonly<Record<string, unknown>>): ListArgs {
  return {
    filter: filterOf(args['filter']),
    orderBy: orderOf(args['orderBy']),
    first: optionalInt(args['first']),
    last: optionalInt(args['last']),
    after: optionalString(args['after']),
    before: optionalString(args['before']),
  };
}

/**
 * The neutral filter, without the keys GraphQL clients set to null to mean
 * "no condition" (`{ name: null }`, `{ and: null }`). Nulls *inside* an
 * operator object stay, for the planner to refuse (`eq: null` → use isNull).
 */
export function filterOf(value: unknown): FilterInput | undefined {
  if (value === null || value === undefined || typeof value !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    if ((key === 'and' || key === 'or') && Array.isArray(item)) out[key] = item.map((entry) => filterOf(entry) ?? {});
    else if (key === 'not') out[key] = filterOf(item) ?? {};
    else out[key] = item;
  }
  return out;
}

function orderOf(value: unknown): OrderKey[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((entry) => {
    const key = entry as { readonly field: string; readonly direction?: 'asc' | 'desc' | null };
    return { field: key.field, direction: key.direction ?? 'asc' };
  });
}

function optionalInt(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
