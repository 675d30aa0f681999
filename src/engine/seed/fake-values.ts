import type { Model, ScalarField } from '../../schema/model.js';

/** A small deterministic PRNG (mulberry32): the same seed gives the same data on every machine. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p) => next() < p,
  };
}

export interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Frances', 'Edsger', 'Radia', 'Tim', 'Hedy', 'Donald', 'Sophie', 'John', 'Katherine', 'Guido', 'Anita', 'Bjarne'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Hamilton', 'Thompson', 'Liskov', 'Ritchie', 'Allen', 'Dijkstra', 'Perlman', 'Berners-Lee', 'Lamarr', 'Knuth', 'Wilson', 'McCarthy', 'Johnson', 'van Rossum', 'Borg', 'Stroustrup'];
const WORDS = ['graph', 'query', 'cache', 'schema', 'index', 'stream', 'vector', 'cursor', 'tensor', 'kernel', 'socket', 'buffer', 'thread', 'module', 'server', 'client', 'object', 'record', 'engine', 'plan', 'table', 'field', 'event', 'image'];
const CITIES = ['Lisbon', 'Berlin', 'Nairobi', 'Osaka', 'Toronto', 'Lima', 'Oslo', 'Pune', 'Austin', 'Lyon', 'Seoul', 'Adelaide'];
const TIMEZONES = ['Europe/Lisbon', 'Europe/Berlin', 'Africa/Nairobi', 'Asia/Tokyo', 'America/Toronto', 'America/Lima', 'Europe/Oslo', 'Asia/Kolkata'];
const LOCALES = ['en-GB', 'de-DE', 'en-KE', 'ja-JP', 'en-CA', 'es-PE', 'nb-NO', 'hi-IN'];
const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Tyrell'];
const JOBS = ['Engineer', 'Designer', 'Researcher', 'Writer', 'Manager', 'Analyst', 'Founder', 'Student'];
const NOTES = ['Please leave it with a neighbour if I am out.', 'Gift wrap, please.', 'Ring twice.', 'No rush.', 'Deliver after 5 pm.'];
const TAGS = ['news', 'howto', 'release', 'opinion', 'graphql', 'rest', 'sql', 'caching', 'performance', 'design'];

/** The span demo records are created and changed in. */
export const SEED_START = Date.UTC(2024, 0, 1);
export const SEED_END = Date.UTC(2026, 10, 1);

function sentence(random: Random, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(random.pick(WORDS));
  const text = out.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A plausible value for a column, guessed from its name and type, so any
 * schema (not just the example) gets demo data that reads like data.
 * `index` is the row number: unique columns are made unique with it.
 */
export function fakeValue(model: Model, field: ScalarField, index: number, random: Random): unknown {
  const name = field.name.toLowerCase();
  if (field.enum !== undefined) {
    const values = model.enums.get(field.enum)?.values ?? [];
    return values.length === 0 ? null : random.pick(values);
  }
  if (field.list) return field.scalar === 'String' ? [random.pick(TAGS), random.pick(TAGS)].filter((v, i, a) => a.indexOf(v) === i) : [];
  if (field.nullable && !field.unique && random.chance(0.15)) return null;
  switch (field.scalar) {
    case 'Boolean':
      return random.chance(name.startsWith('is') ? 0.2 : 0.5);
    case 'Int':
      if (name.includes('quantity')) return random.int(1, 5);
      if (name.includes('year')) return random.int(1950, 2008);
      return random.int(0, 500);
    case 'Float':
      return Math.round(random.int(100, 50_000)) / 100;
    case 'DateTime':
      return new Date(SEED_START + Math.floor(random.next() * (SEED_END - SEED_START))).toISOString();
    case 'JSON':
      return { seed: index };
    case 'ID':
    case 'String':
      return fakeText(name, field.unique, index, random);
  }
}

function fakeText(name: string, unique: boolean, index: number, random: Random): string {
  const first = FIRST[index % FIRST.length] as string;
  const last = LAST[Math.floor(index / FIRST.length) % LAST.length] as string;
  if (name.includes('email')) return `${first.toLowerCase()}.${last.toLowerCase().replace(/[^a-z]/g, '')}${index}@example.com`;
  if (name.includes('username') || name.includes('handle') || name === 'slug') return `${first.toLowerCase()}${index}`;
  if (name === 'sku') return `SKU-${String(index).padStart(6, '0')}`;
  const suffix = unique ? ` ${index}` : '';
  if (name === 'name' || name.endsWith('name')) return `${first} ${last}${suffix}`;
  if (name.includes('url') || name.includes('website')) return `https://example.com/${first.toLowerCase()}${index}`;
  if (name.includes('phone')) return `+1-555-${String(1000 + (index % 9000))}`;
  if (name.includes('city') || name.includes('location')) return `${random.pick(CITIES)}${suffix}`;
  if (name.includes('country')) return `${random.pick(['PT', 'DE', 'KE', 'JP', 'CA', 'PE', 'NO', 'IN'])}${suffix}`;
  if (name === 'pronouns') return random.pick(['she/her', 'he/him', 'they/them']);
  if (name === 'note' || name === 'notes') return random.pick(NOTES);
  if (name.includes('timezone')) return random.pick(TIMEZONES);
  if (name.includes('locale') || name.includes('language')) return random.pick(LOCALES);
  if (name.includes('company')) return `${random.pick(COMPANIES)}${suffix}`;
  if (name.includes('job') || name.includes('title') && !name.startsWith('title')) return random.pick(JOBS);
  if (name.includes('title')) return `${sentence(random, random.int(3, 7))}${suffix}`;
  if (name.includes('body') || name.includes('bio') || name.includes('description') || name.includes('content')) {
    return `${sentence(random, random.int(12, 40))}.${suffix}`;
  }
  return `${sentence(random, random.int(1, 3))}${suffix}`;
}
