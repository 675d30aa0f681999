import { describe, expect, it } from 'vitest';
import { JSON_VALUE_LIMITS, jsonValueProblem } from './coerce.js';

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
