import { describe, expect, it } from 'vitest';
import type { Model, ScalarField } from '../schema/model.js';
import { coerceScalar, JSON_VALUE_LIMITS, jsonValueProblem } from './coerce.js';

/** `[[…[]…]]`, `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('the bounds of a JSON value', () => {
  it('takes scalars and values up to the depth and the count', () => {
    for (const value of [null, 0, 'text', true, {}, [], { a: [1, { b: 'c' }] }]) expect(jsonValueProblem(value)).toBeUndefined();
    expect(jsonValueProblem(nested(JSON_VALUE_LIMITS.maxDepth))).toBeUndefined();
    // The container counts as one value.
    expect(jsonValueProblem(Array(JSON_VALUE_LIMITS.maxValues - 1).fill(0))).toBeUndefined();
  });

  it('refuses one level or one value past them', () => {
    expect(jsonValueProblem(nested(JSON_VALUE_LIMITS.maxDepth + 1))).toBe('nests deeper than 64 levels; the limit is 64');
    expect(jsonValueProblem(Array(JSON_VALUE_LIMITS.maxValues).fill(0))).toBe('holds more than 10000 values; the limit is 10000');
    const spread = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, Array(100).fill(i)]));
    expect(jsonValueProblem(spread)).toBe('holds more than 10000 values; the limit is 10000');
  });

  it('refuses a value a million levels deep without overflowing the stack', () => {
    expect(jsonValueProblem(nested(1_000_000))).toBe('nests deeper than 64 levels; the limit is 64');
  });
});

describe('DateTime values', () => {
  const model = { enums: new Map() } as unknown as Model;
  const field = { kind: 'scalar', scalar: 'DateTime', enum: undefined, list: false, nullable: false } as unknown as ScalarField;
  const coerce = (value: string): unknown => coerceScalar(model, field, value, false);

  it('are stored as UTC with milliseconds, from year 0001 to year 9999 once in UTC', () => {
    expect(coerce('0001-01-01T00:00:00Z')).toEqual({ ok: true, value: '0001-01-01T00:00:00.000Z' });
    expect(coerce('0001-01-01T14:00:00+14:00')).toEqual({ ok: true, value: '0001-01-01T00:00:00.000Z' });
    expect(coerce('9999-12-31T23:59:59.999Z')).toEqual({ ok: true, value: '9999-12-31T23:59:59.999Z' });
    expect(coerce('9999-12-31T00:00:00-23:59')).toEqual({ ok: true, value: '9999-12-31T23:59:00.000Z' });
  });

  it('are refused when an offset carries them past year 9999 or before year 0001, as text SQLite would mis-sort and PostgreSQL cannot read', () => {
    const refused = { ok: false, reason: 'must fall in the years 0001 to 9999 once converted to UTC' };
    for (const value of ['9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59.999-00:01', '0001-01-01T00:00:00+14:00', '0000-01-01T00:00:00Z', '0000-12-31T23:59:59.999Z']) {
      expect(coerce(value), value).toEqual(refused);
    }
  });
});
