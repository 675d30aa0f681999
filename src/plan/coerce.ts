import type { ErrorCode } from '../errors/registry.js';
import type { Model, ScalarField } from '../schema/model.js';

/**
 * Coercion of one scalar value to a field's type, shared by filters and
 * input validation so REST and GraphQL accept and refuse exactly the same
 * values. `fromText` is for values that arrived as URL text (`?age=42`).
 *
 * Returns the stored-ready value, or a reason it does not fit.
 */
export type Coerced =
  | { readonly ok: true; readonly value: unknown }
  /** `code`: when the value is refused for something other than its type (a JSON value past its bounds). */
  | { readonly ok: false; readonly reason: string; readonly code?: ErrorCode };

/**
 * Bounds on one JSON field's value. Past the depth, serialising it
 * (`JSON.stringify` recurses) overflows the stack, and SQLite's JSON
 * functions refuse nesting past 1,000 levels, so one stored value would
 * break every read of its table; the count bounds the work of checking it.
 */
export const JSON_VALUE_LIMITS = Object.freeze({ maxDepth: 64, maxValues: 10_000 });

/**
 * The instants a DateTime may hold, in UTC. Past year 9999 `toISOString`
 * writes `+010000-…`, which PostgreSQL cannot read and which sorts before
 * `2026-…` as SQLite's text; year 0 and before PostgreSQL refuses too.
 */
const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

export function coerceScalar(model: Model, field: ScalarField, value: unknown, fromText: boolean): Coerced {
  if (value === null) return field.nullable ? { ok: true, value: null } : { ok: false, reason: 'must not be null' };
  if (field.list) {
    if (!Array.isArray(value)) return { ok: false, reason: 'must be an array' };
    const items: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const one = coerceOne(model, field, item, false);
      if (!one.ok) return { ...one, reason: `item ${i} ${one.reason}` };
      items.push(one.value);
    }
    return { ok: true, value: items };
  }
  return coerceOne(model, field, value, fromText);
}

function coerceOne(model: Model, field: ScalarField, value: unknown, fromText: boolean): Coerced {
  if (field.enum !== undefined) {
    const values = model.enums.get(field.enum)?.values ?? [];
    return typeof value === 'string' && values.includes(value)
      ? { ok: true, value }
      : { ok: false, reason: `must be one of ${values.join(', ')}` };
  }
  switch (field.scalar) {
    case 'ID':
    case 'String':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, reason: 'must be a string' };
    case 'Int': {
      const number = fromText && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      return typeof number === 'number' && Number.isInteger(number) && number >= INT_MIN && number <= INT_MAX
        ? { ok: true, value: number }
        : { ok: false, reason: 'must be a 32-bit integer' };
    }
    case 'Float': {
      const number = fromText && typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      return typeof number === 'number' && Number.isFinite(number) ? { ok: true, value: number } : { ok: false, reason: 'must be a finite number' };
    }
    case 'Boolean': {
      if (typeof value === 'boolean') return { ok: true, value };
      if (fromText && (value === 'true' || value === 'false')) return { ok: true, value: value === 'true' };
      return { ok: false, reason: 'must be true or false' };
    }
    case 'DateTime': {
      // Stored and compared as ISO-8601 UTC text with milliseconds, so SQLite's text order is time order.
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value)) {
        return { ok: false, reason: 'must be an ISO-8601 date-time such as 2026-01-31T12:00:00Z' };
      }
      const time = Date.parse(value);
      if (Number.isNaN(time)) return { ok: false, reason: 'is not a valid date-time' };
      if (time < EARLIEST_TIME || time > LATEST_TIME) return { ok: false, reason: 'must fall in the years 0001 to 9999 once converted to UTC' };
      return { ok: true, value: new Date(time).toISOString() };
    }
    case 'JSON': {
      const reason = jsonValueProblem(value);
      return reason === undefined ? { ok: true, value } : { ok: false, reason, code: 'VALIDATION_FAILED' };
    }
  }
}

/**
 * Why a JSON value is past `limits` (a JSON field's, by default), or undefined. Walked with a
 * stack of its own, so a value nested far deeper than the limit is refused
 * without recursion, and the walk stops at the first value past a bound.
 */
export function jsonValueProblem(value: unknown, limits: { readonly maxDepth: number; readonly maxValues: number } = JSON_VALUE_LIMITS): string | undefined {
  const { maxDepth, maxValues } = limits;
  const pending: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  let count = 1;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    // Depth counts containers: `[]` is 1 level, `[[]]` 2.
    const depth = next.depth + 1;
    if (depth > maxDepth) return `nests deeper than ${maxDepth} levels; the limit is ${maxDepth}`;
    const items = Array.isArray(next.value) ? (next.value as readonly unknown[]) : Object.values(next.value);
    count += items.length;
    if (count > maxValues) return `holds more than ${maxValues} values; the limit is ${maxValues}`;
    for (const item of items) pending.push({ value: item, depth });
  }
  return undefined;
}
