import type { ResourceType } from '../../schema/model.js';
import type { Filter } from '../../plan/read-plan.js';
import { compareIds, isIdField } from './id-order.js';
import type { SqlContext } from './sql-context.js';

const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The column a filter or order key on `field` reads: scalars, to-one ids and files. */
export function columnOf(ctx: SqlContext, type: ResourceType, alias: string, fieldName: string): string {
  const field = ctx.field(type, fieldName);
  if (field.kind === 'scalar' || field.kind === 'toOne' || field.kind === 'file') return ctx.ref(alias, field.column);
  throw new Error(`plan filters or orders on list field ${type.name}.${fieldName}`);
}

export function compileFilter(ctx: SqlContext, type: ResourceType, alias: string, filter: Filter): string {
  switch (filter.op) {
    case 'and':
    case 'or': {
      if (filter.items.length === 0) return filter.op === 'and' ? '1=1' : '1=0';
      const joiner = filter.op === 'and' ? ' AND ' : ' OR ';
      return `(${filter.items.map((item) => compileFilter(ctx, type, alias, item)).join(joiner)})`;
    }
    case 'not':
      return `NOT (${compileFilter(ctx, type, alias, filter.item)})`;
    case 'related': {
      const field = ctx.field(type, filter.field);
      if (field.kind !== 'toOne') throw new Error(`plan filters through ${type.name}.${filter.field}, which is not a to-one relation`);
      const target = ctx.type(field.target);
      const inner = ctx.alias();
      return `EXISTS (SELECT 1 FROM ${ctx.table(target)} ${inner} WHERE ${ctx.ref(inner, 'id')} = ${ctx.ref(alias, field.column)} AND ${compileFilter(ctx, target, inner, filter.filter)})`;
    }
    case 'isNull':
      return `${columnOf(ctx, type, alias, filter.field)} IS ${filter.value ? '' : 'NOT '}NULL`;
    case 'in': {
      const column = columnOf(ctx, type, alias, filter.field);
      if (filter.values.length === 0) return '1=0';
      return `${column} IN (${filter.values.map((value) => ctx.param(value)).join(', ')})`;
    }
    case 'contains':
      return ctx.sql.contains(columnOf(ctx, type, alias, filter.field), ctx.param(filter.value));
    case 'startsWith':
      return ctx.sql.startsWith(columnOf(ctx, type, alias, filter.field), ctx.param(filter.value));
    case 'ne':
      // SQL's `<>` drops NULL rows; a user asking "status ne X" expects rows with no status too.
      return `(${columnOf(ctx, type, alias, filter.field)} IS NULL OR ${columnOf(ctx, type, alias, filter.field)} <> ${ctx.param(filter.value)})`;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      // `id gt 9` means "after 9 in a list's order", which puts 10 there.
      if (isIdField(ctx.field(type, filter.field))) return compareIds(ctx, columnOf(ctx, type, alias, filter.field), COMPARISON[filter.op], filter.value);
      return `${columnOf(ctx, type, alias, filter.field)} ${COMPARISON[filter.op]} ${ctx.param(filter.value)}`;
    default:
      return `${columnOf(ctx, type, alias, filter.field)} ${COMPARISON[filter.op]} ${ctx.param(filter.value)}`;
  }
}
