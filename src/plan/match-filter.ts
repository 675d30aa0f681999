import type { Filter } from './read-plan.js';

/**
 * Whether a record (as its REST representation: field name → JSON value)
 * satisfies a filter built by `buildFilter`, without the database: events
 * are matched after they are written, against the record they carry. As in
 * SQL, a comparison with a null value is false (only `isNull` matches it).
 * `related` (a rule's join) has no record to look at here and is false.
 */
export function matchesFilter(filter: Filter, params: readonly unknown[], record: Readonly<Record<string, unknown>>): boolean {
  switch (filter.op) {
    case 'and':
      return filter.items.every((item) => matchesFilter(item, params, record));
    case 'or':
      return filter.items.some((item) => matchesFilter(item, params, record));
    case 'not':
      return !matchesFilter(filter.item, params, record);
    case 'isNull':
      return (record[filter.field] === null || record[filter.field] === undefined) === filter.value;
    case 'in': {
      const value = record[filter.field];
      return value !== null && value !== undefined && filter.values.some((param) => compare(value, params[param.param]) === 0);
    }
    case 'related':
      return false;
    default: {
      const value = record[filter.field];
      if (value === null || value === undefined) return false;
      const operand = params[filter.value.param];
      switch (filter.op) {
        case 'contains':
          return typeof value === 'string' && typeof operand === 'string' && value.includes(operand);
        case 'startsWith':
          return typeof value === 'string' && typeof operand === 'string' && value.startsWith(operand);
        default:
          return holds(filter.op, compare(value, operand));
      }
    }
  }
}

function holds(op: string, order: number | undefined): boolean {
  if (order === undefined) return false;
  switch (op) {
    case 'eq':
      return order === 0;
    case 'ne':
      return order !== 0;
    case 'lt':
      return order < 0;
    case 'lte':
      return order <= 0;
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
    default:
      return false;
  }
}

/** -1, 0 or 1; undefined when the two cannot be compared. Instants compare as instants, whatever their spelling. */
function compare(value: unknown, operand: unknown): number | undefined {
  if (operand instanceof Date || (typeof operand === 'string' && typeof value === 'string' && ISO_INSTANT.test(operand) && ISO_INSTANT.test(value))) {
    const a = Date.parse(String(value));
    const b = operand instanceof Date ? operand.getTime() : Date.parse(operand);
    return Number.isNaN(a) || Number.isNaN(b) ? undefined : Math.sign(a - b);
  }
  if (typeof value === 'number' && typeof operand === 'number') return Math.sign(value - operand);
  if (typeof value === 'bigint' || typeof operand === 'bigint') return compare(Number(value), Number(operand));
  if (typeof value === 'string' && typeof operand === 'string') return value < operand ? -1 : value > operand ? 1 : 0;
  if (typeof value === 'boolean' && typeof operand === 'boolean') return value === operand ? 0 : value ? 1 : -1;
  return undefined;
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
