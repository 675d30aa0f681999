import { type ConstValueNode, Kind, valueFromASTUntyped } from 'graphql';
import type { ScalarName } from './model.js';
import { suggest } from '../util/suggest.js';

/** The shape of the field a `@default` belongs to. */
export interface DefaultTarget {
  readonly scalar: ScalarName;
  /** Values of the enum when the field is an enum. */
  readonly enumValues: readonly string[] | undefined;
  readonly enumName: string | undefined;
  readonly list: boolean;
  /** Whether list items may be null (`[String]`). */
  readonly itemNullable: boolean;
}

export type CoercedDefault =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly node: ConstValueNode; readonly expected: string; readonly suggestion?: string };

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** RFC 3339 date-time, or a plain date (midnight UTC). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/**
 * Coerces a `@default(value:)` literal to the field's type, following
 * GraphQL's input coercion (an Int literal fits a Float field; a single
 * value fits a list field as a one-item list) so that the default behaves
 * exactly like the same value sent by a client. Enum values are written as
 * enum literals (`PENDING`), not strings.
 */
export function coerceDefault(node: ConstValueNode, target: DefaultTarget): CoercedDefault {
  if (target.scalar === 'JSON') return { ok: true, value: valueFromASTUntyped(node) };
  if (target.list) {
    const items = node.kind === Kind.LIST ? node.values : [node];
    const values: unknown[] = [];
    for (const item of items) {
      if (item.kind === Kind.NULL && target.itemNullable) {
        values.push(null);
        continue;
      }
      const coerced = coerceItem(item, target);
      if (!coerced.ok) return coerced;
      values.push(coerced.value);
    }
    return { ok: true, value: values };
  }
  if (node.kind === Kind.LIST) return { ok: false, node, expected: `a single ${describe(target)}, not a list` };
  return coerceItem(node, target);
}

function coerceItem(node: ConstValueNode, target: DefaultTarget): CoercedDefault {
  const fail = (suggestion?: string): CoercedDefault => ({
    ok: false,
    node,
    expected: describe(target),
    ...(suggestion === undefined ? {} : { suggestion }),
  });
  if (target.enumValues !== undefined) {
    if (node.kind === Kind.ENUM && target.enumValues.includes(node.value)) return { ok: true, value: node.value };
    if (node.kind === Kind.STRING && target.enumValues.includes(node.value)) return fail(node.value);
    if (node.kind === Kind.ENUM || node.kind === Kind.STRING) return fail(suggest(node.value, target.enumValues));
    return fail();
  }
  switch (target.scalar) {
    case 'String':
      return node.kind === Kind.STRING ? { ok: true, value: node.value } : fail();
    case 'ID':
      return node.kind === Kind.STRING || node.kind === Kind.INT ? { ok: true, value: node.value } : fail();
    case 'Boolean':
      return node.kind === Kind.BOOLEAN ? { ok: true, value: node.value } : fail();
    case 'Int': {
      if (node.kind !== Kind.INT) return fail();
      const value = Number(node.value);
      return value >= INT_MIN && value <= INT_MAX ? { ok: true, value } : fail();
    }
    case 'Float': {
      if (node.kind !== Kind.INT && node.kind !== Kind.FLOAT) return fail();
      const value = Number(node.value);
      return Number.isFinite(value) ? { ok: true, value } : fail();
    }
    case 'DateTime': {
      if (node.kind !== Kind.STRING || !DATE_TIME.test(node.value)) return fail();
      const time = Date.parse(node.value);
      return Number.isNaN(time) ? fail() : { ok: true, value: new Date(time).toISOString() };
    }
    case 'JSON':
      return { ok: true, value: valueFromASTUntyped(node) };
  }
}

function describe(target: DefaultTarget): string {
  if (target.enumValues !== undefined) {
    const shown = target.enumValues.slice(0, 6).join(', ');
    return `a value of enum ${target.enumName ?? ''} (${shown}${target.enumValues.length > 6 ? ', …' : ''})`;
  }
  switch (target.scalar) {
    case 'String':
      return 'a string';
    case 'ID':
      return 'a string or integer id';
    case 'Boolean':
      return 'true or false';
    case 'Int':
      return 'a 32-bit integer';
    case 'Float':
      return 'a number';
    case 'DateTime':
      return 'an ISO 8601 date-time string such as "2026-01-31T12:00:00Z"';
    case 'JSON':
      return 'any value';
  }
}
