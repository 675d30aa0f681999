import { randomFillSync } from 'node:crypto';

// Crockford's base32: URL-safe, case-insensitive, no look-alike letters.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A new record id: 48 bits of milliseconds then 80 random bits (the ULID
 * layout), 26 lowercase characters. Ids sort by creation time, which keeps
 * B-tree inserts at the right edge and makes `order by id` meaningful. Within
 * one millisecond (or if the clock steps back) the random part of the last
 * id is incremented instead, as ULID's monotonic generation does, so ids made
 * by one process sort in the order they were made. (So within a burst the
 * next id is guessable: ids are names, never secrets or access checks.)
 */
export function newId(now: number = Date.now()): string {
  if (now <= last.time) {
    const random = increment(last.random);
    if (random !== undefined) return remember(last.time, random);
    // 2^80 ids in one millisecond: borrow the next one.
    return newId(last.time + 1);
  }
  return remember(now, randomPart());
}

let last = { time: -1, random: '' };

function remember(time: number, random: string): string {
  last = { time, random };
  return timePart(time) + random;
}

function timePart(time: number): string {
  let out = '';
  for (let i = 9; i >= 0; i--) {
    out = (ALPHABET[time % 32] as string) + out;
    time = Math.floor(time / 32);
  }
  return out;
}

/** 80 random bits → 16 characters of 5 bits. */
function randomPart(): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of randomBytes(10)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(value >> bits) & 31] as string;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

/** The base-32 number one larger, or undefined when every digit is already the largest. */
function increment(digits: string): string | undefined {
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = ALPHABET.indexOf(digits[i] as string);
    if (digit < ALPHABET.length - 1) return digits.slice(0, i) + (ALPHABET[digit + 1] as string) + '0'.repeat(digits.length - 1 - i);
  }
  return undefined;
}

/**
 * Random bytes from a pool filled 4 KiB at a time: one call into the CSPRNG
 * per ~400 ids instead of one per id, where it was the costliest part of a
 * create. The bytes are used once each, in order, like randomUUID's cache.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomBytes(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/**
 * The order of ids everywhere a list is ordered or paged by them: shorter
 * first, then as text (the SQL is each dialect's `idOrder`), so numeric ids
 * come 1, 2, …, 10 and generated ids, all of one length, by creation time.
 */
export function compareIdOrder(a: string, b: string): number {
  return Math.sign(a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The longest id anything points at: `newId` makes 26 characters, and room
 * is left for ids made elsewhere (a UUID is 36). A longer one names no record.
 */
export const MAX_ID_LENGTH = 64;

export function isWellFormedId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_ID_LENGTH && /^[0-9A-Za-z_-]+$/.test(value);
}
