import { compareIdOrder } from '../util/ids.js';
import type { Filter } from './read-plan.js';

/**
 * Whether a record (as its REST representation: field name → JSON value)
 * satisfies a filter built by `buildFilter`, without the database: events
 * are matched after they are written, against the record they carry. It
 * answers as the SQL the same filter compiles to (storage/compile/
 * compile-filter.ts) would, with SQL's three-valued logic: a comparison
 * with a null value is unknown, `not` of unknown is unknown, and only a
 * true answer matches. So `not(status == ARCHIVED)` does not match a
 * record without a status, as in the database, while `ne` matches it
 * (it compiles to `IS NULL OR <>`). `related` (a rule's join) has no
 * record to look at here and is unknown: such a filter matches nothing.
 */
export function matchesFilter(filter: Filter, params: readonly unknown[], record: Readonly<Record<string, unknown>>): boolean {
  return truth(filter, params, record) === true;
}

/** true, false, or null for SQL's unknown. */
type Truth = boolean | null;

function truth(filter: Filter, params: readonly unknown[], record: Readonly<Record<string, unknown>>): Truth {
  switch (filter.op) {
    case 'and': {
      let answer: Truth = true;
      for (const item of filter.items) {
        const each = truth(item, params, record);
        if (each === false) return false;
        if (each === null) answer = null;
      }
      return answer;
    }
    case 'or': {
      let answer: Truth = false;
      for (const item of filter.items) {
        const each = truth(item, params, record);
        if (each === true) return true;
        if (each === null) answer = null;
      }
      return answer;
    }
    case 'not': {
      const inner = truth(filter.item, params, record);
      return inner === null ? null : !inner;
    }
    case 'isNull':
      return isMissing(record[filter.field]) === filter.value;
    case 'related':
      return null;
    case 'in': {
      const value = record[filter.field];
      if (filter.values.length === 0) return false;
      if (isMissing(value)) return null;
      return filter.values.some((param) => compare(value, params[param.param]) === 0) ? true : false;
    }
    default: {
      const value = record[filter.field];
      const operand = params[filter.value.param];
      if (filter.op === 'ne' && isMissing(value)) return true;
      if (isMissing(value) || isMissing(operand)) return null;
      switch (filter.op) {
        case 'contains':
          return typeof value === 'string' && typeof operand === 'string' ? value.includes(operand) : null;
        case 'startsWith':
          return typeof value === 'string' && typeof operand === 'string' ? value.startsWith(operand) : null;
        default: {
          // The record's id compares in the id order (shorter first), as the SQL does.
          const order = filter.field === 'id' && typeof value === 'string' && typeof operand === 'string' ? compareIdOrder(value, operand) : compare(value, operand);
          return order === undefined ? null : holds(filter.op, order);
        }
      }
    }
  }
}

function isMissing(value: unknown): boolean {
  return value === null || value === undefined;
}

function holds(op: string, order: number): boolean {
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
