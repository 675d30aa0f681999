import { ApiError } from '../errors/api-error.js';
import type { OrderKey } from './read-plan.js';

/**
 * Opaque keyset cursors: the hex of the JSON text `[order signature, ...key
 * values]`. Hex rather than base64 because the database can produce it too
 * (`hex()` / `encode(…, 'hex')`), so a cursor can be selected per list item
 * inside the one statement; and it is URL-safe as is.
 * The signature ties a cursor to the order it was made for, so a cursor from
 * `?sort=name` is refused by `?sort=-createdAt` instead of silently skipping rows.
 */
export function encodeCursor(order: readonly OrderKey[], values: readonly unknown[]): string {
  const normalized = values.map((value) => (value instanceof Date ? value.toISOString() : value));
  return Buffer.from(JSON.stringify([orderSignature(order), ...normalized])).toString('hex').toUpperCase();
}

export function decodeCursor(order: readonly OrderKey[], cursor: string, argument: string): unknown[] {
  const decoded = decodeHex(cursor);
  if (!Array.isArray(decoded) || decoded[0] !== orderSignature(order) || decoded.length !== order.length + 1) {
    throw new ApiError('QUERY_INVALID_CURSOR', {
      detail: `${argument} is not a cursor of this list in this order; use the cursors the list returned`,
    });
  }
  const values = decoded.slice(1);
  if (!values.every((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value))) {
    throw new ApiError('QUERY_INVALID_CURSOR', { detail: `${argument} holds values of the wrong type` });
  }
  return values;
}

/** The signature of the order a cursor was made for; undefined when it is no cursor at all. */
export function cursorSignature(cursor: string): string | undefined {
  const decoded = decodeHex(cursor);
  return Array.isArray(decoded) && typeof decoded[0] === 'string' ? decoded[0] : undefined;
}

function decodeHex(cursor: string): unknown {
  try {
    return /^(?:[0-9A-Fa-f]{2})+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'hex').toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** Plans are frozen and reused (plan templates), so a frozen order is spelled once; any other each time. */
const signatures = new WeakMap<readonly OrderKey[], string>();

export function orderSignature(order: readonly OrderKey[]): string {
  const known = signatures.get(order);
  if (known !== undefined) return known;
  const signature = order.map((key) => (key.direction === 'desc' ? `-${key.field}` : key.field)).join(',');
  if (Object.isFrozen(order)) signatures.set(order, signature);
  return signature;
}
