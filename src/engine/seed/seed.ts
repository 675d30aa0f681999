import type { Model, ResourceType, ScalarField } from '../../schema/model.js';
import { compileInsertRows } from '../../storage/compile/compile-write.js';
import type { Database, SqlRunner, SqlValue } from '../../storage/dialect.js';
import type { ChangeClock } from '../change-clock.js';
import type { EngineFiles } from '../engine-files.js';
import { catalogueItem, postBody, postTitle, profileBio } from './demo-texts.js';
import { createRandom, fakeValue, SEED_END, SEED_START, type Random } from './fake-values.js';
import { isPricedType, planLineItems, totalField, type LineItemPlan, type Totals } from './line-items.js';
import { seedPictures, type Pictures } from './seed-pictures.js';

export interface SeedOptions {
  /** Rows per type name; types not named get `defaultCount`. */
  readonly counts?: Readonly<Record<string, number>>;
  readonly defaultCount?: number;
  /** Links per owner for many-to-many fields (`User.followers`: 20 → 20 × users links). */
  readonly linksPerRecord?: number;
  readonly seed?: number;
  /**
   * How many records of each file field get a generated picture (the first
   * ones: ids "1".."n"); default 50. Needs an engine with a file store.
   */
  readonly pictures?: number;
  readonly onProgress?: (event: SeedProgress) => void;
}

export interface SeedProgress {
  readonly table: string;
  readonly done: number;
  readonly total: number;
}

/** The example's sizes from the brief: 1,000 users, 10,000 posts, 20,000 follows, 200 products, 2,000 orders. */
export const EXAMPLE_COUNTS: Readonly<Record<string, number>> = { User: 1000, Post: 10_000, Product: 200, Order: 2000, OrderItem: 6000 };

const ROWS_PER_STATEMENT = 200;

/**
 * Deterministic demo data for any model: ids are "1".."n" per type (so the
 * brief's `/users/42` exists), values are guessed from field names, to-one
 * targets are skewed (a few users write most posts, as in real data).
 * Rows hold together as real ones do: updated no earlier than created,
 * order totals the sum of their lines, no one following themself.
 * Everything is written in one transaction, in multi-row INSERTs.
 */
export async function seedDatabase(
  model: Model,
  db: Database,
  clock: ChangeClock,
  options: SeedOptions = {},
  files?: EngineFiles,
): Promise<Record<string, number>> {
  const random = createRandom(options.seed ?? 42);
  const counts = new Map<string, number>();
  for (const type of model.types) counts.set(type.name, options.counts?.[type.name] ?? options.defaultCount ?? 100);
  const written: Record<string, number> = {};
  // Files first, rows after: a row never points at a file that is not stored yet.
  const pictures = files === undefined ? new Map<string, readonly string[]>() : await seedPictures(model, counts, files.service, options.pictures ?? 50);
  try {
    await writeRows(model, db, clock, counts, random, options, pictures, written);
  } finally {
    // Pinned since they were stored; a failed seed leaves none of them behind.
    const keys = [...pictures.values()].flat();
    for (const key of keys) files?.service.unpin(key);
    await files?.release(keys);
  }
  return written;
}

async function writeRows(
  model: Model,
  db: Database,
  clock: ChangeClock,
  counts: ReadonlyMap<string, number>,
  random: Random,
  options: SeedOptions,
  pictures: Pictures,
  written: Record<string, number>,
): Promise<void> {
  const lineItems = planLineItems(model, counts, random);
  const moves = await clock.write((guard) =>
    db.transaction(async (tx) => {
      for (const type of insertionOrder(model)) {
        written[type.table] = await seedType(model, db, tx, type, counts, random, options.onProgress, pictures, lineItems);
      }
      for (const join of model.joinTables) {
        const owners = counts.get(join.sourceType) ?? 0;
        const targets = counts.get(join.targetType) ?? 0;
        written[join.name] = await seedLinks(db, tx, join.name, [join.sourceColumn, join.targetColumn], owners, targets, owners * (options.linksPerRecord ?? 20), join.sourceType === join.targetType, random, options.onProgress);
      }
      return clock.bump(tx, Object.keys(written), guard);
    }),
  );
  clock.noteCommitted(moves);
}

/** Types ordered so that every non-null to-one target is written before its referrers. */
function insertionOrder(model: Model): ResourceType[] {
  const done = new Set<string>();
  const order: ResourceType[] = [];
  const visit = (type: ResourceType, path: Set<string>): void => {
    if (done.has(type.name) || path.has(type.name)) return;
    path.add(type.name);
    for (const field of type.fields) {
      if (field.kind === 'toOne' && field.target !== type.name) visit(model.typesByName.get(field.target) as ResourceType, path);
    }
    done.add(type.name);
    order.push(type);
  };
  for (const type of model.types) visit(type, new Set());
  return order;
}

/** What the makers of one row share: its times, and the values made so far (by field name). */
interface RowState {
  created: number;
  updated: number;
  readonly values: Record<string, unknown>;
}

type Maker = (index: number, row: RowState) => SqlValue;

async function seedType(
  model: Model,
  db: Database,
  tx: SqlRunner,
  type: ResourceType,
  counts: ReadonlyMap<string, number>,
  random: Random,
  onProgress: SeedOptions['onProgress'],
  pictures: Pictures,
  lineItems: { readonly plans: ReadonlyMap<string, LineItemPlan>; readonly totals: Totals },
): Promise<number> {
  const total = counts.get(type.name) ?? 0;
  const columns: string[] = ['id'];
  const makers: Maker[] = [(index) => String(index)];
  const plan = lineItems.plans.get(type.name);
  const sums = totalField(type) === undefined ? undefined : lineItems.totals.get(type.name);
  const priced = isPricedType(type);
  for (const field of type.fields) {
    if (field.kind === 'scalar' && field.name !== 'id') {
      columns.push(field.column);
      const planned = plannedValue(plan, field.name);
      makers.push((index, row) => {
        // null is a value here (a draft's publishedAt): only undefined passes the field on.
        let value = planned === undefined ? undefined : planned(index);
        if (value === undefined) value = shapedValue(field, index, row, random, { priced, sums });
        if (value === undefined) value = fakeValue(model, field, index, random);
        row.values[field.name] = value;
        return value === null ? null : field.list || field.scalar === 'JSON' ? JSON.stringify(value) : (value as SqlValue);
      });
    } else if (field.kind === 'toOne') {
      const targets = counts.get(field.target) ?? 0;
      columns.push(field.column);
      const planned = plannedValue(plan, field.name);
      makers.push((index) => {
        if (planned !== undefined) return planned(index) as SqlValue;
        if (targets === 0 || (field.nullable && random.chance(0.1))) return null;
        // Self-references point backwards so they always exist; others are skewed towards low ids.
        const limit = field.target === type.name ? Math.max(1, index - 1) : targets;
        if (field.target === type.name && index === 1) return null;
        return String(1 + Math.floor(limit * random.next() ** 2));
      });
    } else if (field.kind === 'file') {
      const keys = pictures.get(`${type.name}.${field.name}`) ?? [];
      columns.push(field.column);
      makers.push((index) => keys[index - 1] ?? null);
    }
  }
  const row = (index: number): SqlValue[] => {
    // Created at some time in the demo's span; updated then or later, most rows not long after.
    const created = SEED_START + Math.floor(random.next() * (SEED_END - SEED_START));
    const state: RowState = { created, updated: created + Math.floor((SEED_END - created) * random.next() ** 3), values: {} };
    return makers.map((make) => make(index, state));
  };
  await insertRows(db, tx, type.table, columns, total, row, onProgress);
  return total;
}

/** A planned order line's value for a field, if the plan decides that field. */
function plannedValue(plan: LineItemPlan | undefined, name: string): ((index: number) => unknown) | undefined {
  if (plan === undefined) return undefined;
  const line = (index: number) => plan.lines[index - 1] as LineItemPlan['lines'][number];
  if (name === plan.parentField.name) return (index) => String(line(index).parent);
  if (name === plan.productField?.name) return (index) => (line(index).product === null ? null : String(line(index).product));
  if (name === plan.quantityField.name) return (index) => line(index).quantity;
  if (name === plan.priceField.name) return (index) => line(index).priceCents / 100;
  return undefined;
}

/**
 * Values that depend on the rest of the row or on what kind of record it is;
 * undefined leaves the field to fakeValue. Enums and other fields come
 * before the times that depend on them (a draft has no publishedAt).
 */
function shapedValue(
  field: ScalarField,
  index: number,
  row: RowState,
  random: Random,
  kind: { readonly priced: boolean; readonly sums: ReadonlyMap<number, number> | undefined },
): unknown {
  const name = field.name.toLowerCase();
  if (field.auto === 'createdAt') return new Date(row.created).toISOString();
  if (field.auto === 'updatedAt') return new Date(row.updated).toISOString();
  if (field.list || field.enum !== undefined) return undefined;
  if (kind.sums !== undefined && field.name === 'total') return (kind.sums.get(index) ?? 0) / 100;
  if (kind.priced) {
    const item = catalogueItem(index);
    if (name === 'name') return item.name;
    if (name === 'price') return item.priceCents / 100;
    if (name === 'pricecents') return item.priceCents;
    if (name === 'description') return item.description;
  }
  if (field.scalar === 'DateTime' && name.endsWith('at') && name !== 'at') {
    // Published only once not a draft; like any other event of the record, between its creation and its last update.
    if (name === 'publishedat' && (row.values['status'] === 'DRAFT' || row.values['status'] === undefined)) return null;
    if (field.nullable && name !== 'publishedat' && random.chance(0.15)) return null;
    return new Date(row.created + Math.floor((row.updated - row.created) * random.next())).toISOString();
  }
  if (field.scalar !== 'String' || field.unique) return undefined;
  if (name === 'title') return postTitle(random);
  if (name === 'body' || name === 'content') return postBody(random);
  if (name === 'bio') return field.nullable && random.chance(0.15) ? null : profileBio(random);
  return undefined;
}

async function seedLinks(
  db: Database,
  tx: SqlRunner,
  table: string,
  columns: readonly [string, string],
  owners: number,
  targets: number,
  wanted: number,
  self: boolean,
  random: Random,
  onProgress: SeedOptions['onProgress'],
): Promise<number> {
  if (owners === 0 || targets === 0) return 0;
  const seen = new Set<string>();
  const pairs: [string, string][] = [];
  const capacity = owners * targets - (self ? owners : 0);
  const goal = Math.min(wanted, capacity);
  while (pairs.length < goal) {
    const owner = 1 + Math.floor(owners * random.next() ** 1.5);
    const target = 1 + Math.floor(targets * random.next());
    if (self && owner === target) continue;
    const key = `${owner}:${target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pairs.push([String(owner), String(target)]);
  }
  await insertRows(db, tx, table, columns, pairs.length, (index) => pairs[index - 1] as [string, string], onProgress);
  return pairs.length;
}

async function insertRows(
  db: Database,
  tx: SqlRunner,
  table: string,
  columns: readonly string[],
  total: number,
  row: (index: number) => SqlValue[],
  onProgress: SeedOptions['onProgress'],
): Promise<void> {
  const perStatement = Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(30_000 / columns.length)));
  for (let start = 1; start <= total; start += perStatement) {
    const end = Math.min(total, start + perStatement - 1);
    const rows: SqlValue[][] = [];
    for (let index = start; index <= end; index++) rows.push(row(index));
    const { sql, params } = compileInsertRows(db.sql, table, columns, rows);
    await tx.run(sql, params);
    onProgress?.({ table, done: end, total });
  }
}
