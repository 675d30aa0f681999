import { getArgumentValues, type FieldNode, type GraphQLObjectType } from 'graphql';
import type { FieldRequest, ListArgs } from '../../plan/build-read.js';
import type { FilterInput } from '../../plan/build-filter.js';
import type { OrderKey } from '../../plan/read-plan.js';
import type { GeneratedSchema } from '../schema/roles.js';
import { collectFields, type OperationScope } from './collect-fields.js';

export interface SelectionContext extends OperationScope {
  readonly generated: GeneratedSchema;
}

/** A selection as the planner's `FieldRequest`s (the planner checks depth, breadth and cost: plan/limits.ts). */
export function buildSelection(ctx: SelectionContext, typeName: string, parents: readonly FieldNode[]): FieldRequest[] {
  const type = ctx.schema.getType(typeName) as GraphQLObjectType;
  const roles = ctx.generated.objects.get(typeName);
  if (roles === undefined) throw new Error(`No field roles for ${typeName}`);
  const sets = parents.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
  const select: FieldRequest[] = [];
  for (const [key, nodes] of collectFields(ctx, type, sets)) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
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
        select.push({ key, field: role.field, select: buildSelection(ctx, role.target.name, nodes) });
        break;
      }
      case 'list': {
        const list = listArgsOf(getArgumentValues(definition, node, ctx.variables));
        select.push({ key, field: role.field, select: buildSelection(ctx, role.target.name, nodes), list });
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
