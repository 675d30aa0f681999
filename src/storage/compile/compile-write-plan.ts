import type { WritePlan, WriteRules, WriteValues } from '../../plan/write-plan.js';
import type { Model, ResourceType } from '../../schema/model.js';
import { LruCache } from '../../util/lru-cache.js';
import type { Database, SqlValue } from '../dialect.js';
import { EVENT_ROW, eventInsertParams, eventInsertSql, eventParamIndex, eventRowPrefix, type EventValues } from '../outbox.js';
import { clockBumpParams, compileClockBump } from './compile-clock.js';
import { compileCascade, type CompiledCascade } from './compile-cascade.js';
import { compileFileKeyReads, touchesFiles } from './compile-file-keys.js';
import { compileRowCheck, compileRowRules } from './compile-rule-check.js';
import {
  affectedByDelete,
  compileDelete,
  compileExists,
  compileInsert,
  compileLink,
  compileUnlink,
  compileUpdate,
  type ColumnValues,
  type SqlStatement,
} from './compile-write.js';
import { EventImages } from './event-images.js';

/**
 * One statement of a write, in the order the write runs them, with what its
 * result means. Every statement runs in the write's transaction, except a
 * `create` step, which is the whole write in one statement.
 */
export type WriteStep =
  /** Takes the record's row lock (a no-op update), so nothing below reads a row a concurrent write is changing. */
  | ({ readonly step: 'lock' } & SqlStatement)
  /** The stored record `id` of `type` under the rules: no row or `visible` 0 is a 404; `allowed` 0 a 403. */
  | ({ readonly step: 'rules'; readonly type: string; readonly id: string } & SqlStatement)
  /** Where the caller's precondition (If-Match, If-Unmodified-Since) reads the record, under the lock: no SQL of its own here. */
  | { readonly step: 'precondition' }
  /**
   * A delete's cascade, planned by the engine with these statements (their
   * number depends on the data): refused (409 RESTRICT, 403 by the rules,
   * 409 past the limit) before anything is changed, else its events written,
   * its files' keys read and its SET_NULL relations cleared.
   */
  | { readonly step: 'cascade'; readonly cascade: CompiledCascade; readonly now: string; readonly principal: string }
  /** Keys of the files the write is about to stop pointing at, in `columns` of the rows. */
  | ({ readonly step: 'files'; readonly columns: readonly string[] } & SqlStatement)
  /** The record's representation before the change (`j`), for its event's `previous`. */
  | ({ readonly step: 'previous' } & SqlStatement)
  /** No row is a 404 for record `id` of `type`. */
  | ({ readonly step: 'exists'; readonly type: string; readonly id: string } & SqlStatement)
  /** The change. Changing no row is a 404 (`notFound`), or for a link, a write that changed nothing (`unchanged`): nothing follows then. An insert changes its row or fails. */
  | ({ readonly step: 'apply'; readonly none?: 'notFound' | 'unchanged' } & SqlStatement)
  /** An update's `@immutable` fields hold the values written already: no row is a 404, `allowed` 0 a 409 INPUT_IMMUTABLE_FIELD for `fields`. */
  | ({ readonly step: 'unchanged'; readonly type: string; readonly id: string; readonly fields: readonly string[] } & SqlStatement)
  /**
   * A to-one value's target under the asker's read rule: no row or `visible`
   * 0 fails as a value naming no record (409 RELATION_TARGET_NOT_FOUND for
   * `type.field`, naming `target`).
   */
  | ({ readonly step: 'reference'; readonly type: string; readonly field: string; readonly target: string } & SqlStatement)
  /** The record as written passes the rules' check: no row is a 403, and nothing is kept. */
  | ({ readonly step: 'check' } & SqlStatement)
  /** One table's change clock moves: its row is a `ClockMove`. */
  | ({ readonly step: 'clock' } & SqlStatement)
  /** The outbox event; `previousParam`, when set, is the param that takes the `previous` step's image. */
  | ({ readonly step: 'event'; readonly previousParam?: number } & SqlStatement)
  /** A create in one statement (insert, clock, event, and the read-back as `j`): rows are `ClockMove`s. */
  | ({ readonly step: 'create' } & SqlStatement);

export interface CompiledWrite {
  /** False when the write is its one `create` step, which commits alone. */
  readonly transaction: boolean;
  readonly steps: readonly WriteStep[];
  /** The tables whose clocks it moves (none: the write changes nothing). */
  readonly tables: readonly string[];
}

/** The read-back of a created record as a SELECT over `source`, the `WITH` clause holding its new row. */
export type ReadBack = (id: string, source: string) => SqlStatement;

export interface WriteInput {
  readonly plan: WritePlan;
  readonly type: ResourceType;
  /** The record's id (a create's new one). */
  readonly id: string;
  /** A create's or update's columns as stored (an update setting none changes nothing). */
  readonly columns?: ColumnValues;
  /** The event, but for its images, which the statements render. */
  readonly event: EventValues;
  /** The write's time (the clocks' `changed_at`). */
  readonly now: string;
  /** SQL every clock bump carries (`Database.clockWrite`). */
  readonly guard: string | undefined;
  /** The clock row each table's bump moves (see ChangeClock). */
  readonly shard: number;
  /** The caller checks a precondition under the row lock. */
  readonly precondition: boolean;
  /** The caller releases the files the write leaves behind (so their keys are read first). */
  readonly releasesFiles: boolean;
  readonly readBack?: ReadBack;
}

/** The `WITH` clause of a one-statement create that holds the new row (its insert's `RETURNING *`). */
const NEW_ROW = '_new_row';
/**
 * Read-back shapes whose create texts are kept, and texts kept for each (one
 * per set of columns a create writes). LRU caches hold up to twice their
 * capacity, so at most 64 × 16 texts of a few KB: about 3 MB however varied
 * the creates, where a real client's handful of shapes takes a few KB.
 */
const CREATE_TEXT_READS = 32;
const CREATE_TEXTS_PER_READ = 8;

/**
 * Turns a write plan into the statements that carry it out: lock, rules,
 * previous image, the change, the rules' check, the clock bumps and the
 * outbox event, so a write that is acknowledged is also visible to caches
 * and to event consumers, and a failed one leaves no trace in any of them.
 * The engine runs them in one transaction and acts on their results.
 */
export class WriteCompiler {
  /** One-statement create texts, by read-back text, then by table, guard and columns (see `createText`). */
  private readonly createTexts = new LruCache<string, LruCache<string, string>>(CREATE_TEXT_READS);
  /** Event inserts by table, image column and first placeholder (a handful per type). */
  private readonly eventTexts = new LruCache<string, string>(256);
  /** Clock bump texts, by first placeholder and guard (a handful: a write carries the one guard or none). */
  private readonly bumpTexts = new LruCache<string, string>(16);
  private readonly images: EventImages;

  constructor(
    private readonly model: Model,
    private readonly db: Pick<Database, 'sql' | 'supports'>,
  ) {
    this.images = new EventImages(model, db.sql);
  }

  compile(input: WriteInput): CompiledWrite {
    const { plan } = input;
    // A create with a rule to check on the written row takes the transaction, which can check before it commits.
    if (plan.kind === 'create' && this.db.supports.writableCte && plan.rules?.check === undefined && plan.rules?.references === undefined) {
      return { transaction: false, steps: [this.createInOneStatement(input)], tables: [input.type.table] };
    }
    return this.inTransaction(input);
  }

  private inTransaction(input: WriteInput): CompiledWrite {
    const { plan, type, id } = input;
    const sql = this.db.sql;
    const steps: WriteStep[] = [];
    const files = input.releasesFiles && touchesFiles(this.model, type, plan);
    const unchanged = plan.kind === 'update' ? plan.unchanged : undefined;
    const cascade = plan.kind === 'delete' ? compileCascade(this.model, this.db, this.images, type, plan.rules) : undefined;
    const referred = cascade !== undefined && cascade.reach.size > 0;
    if ((input.precondition || files || plan.rules !== undefined || unchanged !== undefined || referred) && plan.kind !== 'create') {
      const q = sql.quoteIdent('id');
      const table = sql.quoteIdent(type.table);
      // A no-op update takes the row lock on PostgreSQL; SQLite's write transaction is already exclusive. A delete that
      // others may point at takes the stronger lock, which waits for an insert pointing at the row and makes later ones wait:
      // no record the cascade has not seen can appear.
      const lock =
        referred && this.db.supports.rowLocks === true
          ? `SELECT ${q} FROM ${table} WHERE ${q} = ${sql.placeholder(0)} FOR UPDATE`
          : `UPDATE ${table} SET ${q} = ${q} WHERE ${q} = ${sql.placeholder(0)}`;
      steps.push({ step: 'lock', sql: lock, params: [plan.id] });
      // The rules are checked on the committed row, under its lock: an owner changed meanwhile is seen.
      if (plan.rules !== undefined) steps.push(this.rules(type, plan.id, plan.rules));
      if (input.precondition) steps.push({ step: 'precondition' });
      if (unchanged !== undefined) {
        const check = compileRowRules(this.model, sql, type, plan.id, { params: unchanged.params, allowed: unchanged.filter });
        steps.push({ step: 'unchanged', type: type.name, id: plan.id, fields: unchanged.fields, ...check });
      }
    }
    if (plan.kind === 'create' || plan.kind === 'update') steps.push(...this.references(type, plan.values, plan.rules));
    if (referred) steps.push({ step: 'cascade', cascade, now: input.now, principal: input.event.principal });
    // Read under that lock, so a concurrent write cannot swap a file in between unseen.
    if (files) for (const read of compileFileKeyReads(this.model, sql, type, plan)) steps.push({ step: 'files', ...read });
    // The event's `previous`: an update reads it first (one statement); a delete records its whole event first (none extra).
    if (plan.kind === 'update') steps.push({ step: 'previous', sql: this.imageText(type), params: [id] });
    if (plan.kind === 'delete') steps.push(this.event(type, id, input.event, 'previous'));
    const tables = this.apply(input, steps);
    const written = plan.rules?.check;
    if (written !== undefined && (plan.kind === 'create' || plan.kind === 'update')) {
      steps.push({ step: 'check', ...compileRowCheck(this.model, sql, type, id, plan.rules as WriteRules, written) });
    }
    if (tables.length > 0) {
      // One shard for all the tables, locked in name order: two writes that bump the same rows take them in the same order, so they cannot deadlock.
      for (const table of [...tables].sort()) steps.push({ step: 'clock', sql: this.bumpText(input.guard, 0), params: clockBumpParams(table, input.now, input.shard) });
      if (plan.kind !== 'delete') steps.push(this.event(type, id, input.event, 'record'));
    }
    return { transaction: true, steps, tables };
  }

  /** The change's statements; returns the tables whose clocks it moves. */
  private apply(input: WriteInput, steps: WriteStep[]): readonly string[] {
    const { plan, type } = input;
    const sql = this.db.sql;
    switch (plan.kind) {
      case 'create':
        steps.push({ step: 'apply', ...compileInsert(sql, type, input.columns ?? new Map()) });
        return [type.table];
      case 'update':
        if (input.columns === undefined || input.columns.size === 0) {
          steps.push(this.exists(type, plan.id));
          return [];
        }
        steps.push({ step: 'apply', none: 'notFound', ...compileUpdate(sql, type, plan.id, input.columns) });
        return [type.table];
      case 'delete':
        steps.push({ step: 'apply', none: 'notFound', ...compileDelete(sql, type, plan.id) });
        return affectedByDelete(this.model, type);
      case 'connect':
      case 'disconnect': {
        const field = type.fieldsByName.get(plan.field);
        if (field?.kind !== 'manyToMany') throw new Error(`${type.name}.${plan.field} is not a many-to-many relation`);
        steps.push(this.exists(type, plan.id));
        const target = this.model.typesByName.get(field.target) as ResourceType;
        if (plan.rules?.target === undefined) steps.push(this.exists(target, plan.targetId));
        else steps.push(this.rules(target, plan.targetId, { params: plan.rules.params, visible: plan.rules.target }));
        const statement = plan.kind === 'connect' ? compileLink(sql, field, plan.id, plan.targetId) : compileUnlink(sql, field, plan.id, plan.targetId);
        steps.push({ step: 'apply', none: 'unchanged', ...statement });
        return [field.joinTable];
      }
    }
  }

  /** One step per to-one value whose target the asker's read rule limits (only under rules). */
  private references(type: ResourceType, values: WriteValues, rules: WriteRules | undefined): WriteStep[] {
    const steps: WriteStep[] = [];
    for (const [name, visible] of Object.entries(rules?.references ?? {})) {
      const field = type.fieldsByName.get(name);
      const targetId = values[name];
      if (field?.kind !== 'toOne' || typeof targetId !== 'string' || rules === undefined) continue;
      const target = this.model.typesByName.get(field.target) as ResourceType;
      const check = compileRowRules(this.model, this.db.sql, target, targetId, { params: rules.params, visible });
      steps.push({ step: 'reference', type: type.name, field: name, target: target.name, ...check });
    }
    return steps;
  }

  private rules(type: ResourceType, id: string, rules: WriteRules): WriteStep {
    return { step: 'rules', type: type.name, id, ...compileRowRules(this.model, this.db.sql, type, id, rules) };
  }

  private exists(type: ResourceType, id: string): WriteStep {
    return { step: 'exists', type: type.name, id, ...compileExists(this.db.sql, type, id) };
  }

  /** The record's REST representation now, in this transaction (no row when it does not exist). */
  private imageText(type: ResourceType): string {
    const key = `${type.table}\nread`;
    let text = this.eventTexts.get(key);
    if (text === undefined) {
      text = eventRowPrefix(this.db, type.table) + this.images.sql(type, EVENT_ROW);
      this.eventTexts.set(key, text);
    }
    return text;
  }

  /**
   * The write's event, its `image` column (`record` after the change, or a
   * delete's `previous`) rendered from the row by the insert itself.
   */
  private event(type: ResourceType, id: string, event: EventValues, image: 'record' | 'previous'): WriteStep {
    const key = `${type.table}\n${image}`;
    let text = this.eventTexts.get(key);
    if (text === undefined) {
      text = eventRowPrefix(this.db, type.table) + eventInsertSql(this.db.sql, 1, { column: image, sql: this.images.sql(type, EVENT_ROW) });
      this.eventTexts.set(key, text);
    }
    const params = [id, ...eventInsertParams(event, image)];
    // An update's `previous` is read by its own statement first.
    return image === 'record' ? { step: 'event', sql: text, params, previousParam: 1 + eventParamIndex('previous', image) } : { step: 'event', sql: text, params };
  }

  private bumpText(guard: string | undefined, firstParam: number): string {
    const key = `${firstParam}\n${guard ?? ''}`;
    let text = this.bumpTexts.get(key);
    if (text === undefined) {
      text = compileClockBump(this.db.sql, guard, firstParam);
      this.bumpTexts.set(key, text);
    }
    return text;
  }

  /**
   * A create where the database can run the insert, the clock bump and the
   * outbox event as one statement (PostgreSQL's data-modifying WITH): one
   * round trip and no BEGIN/COMMIT, where the transaction takes five, and
   * still all or nothing, as a single statement commits alone. With
   * `readBack`, the same statement also renders the new record, from the
   * row the insert returns (the rest of the statement cannot see it in its
   * table yet).
   */
  private createInOneStatement(input: WriteInput): WriteStep {
    const { type, id } = input;
    const columns = input.columns ?? new Map<string, SqlValue>();
    const read = input.readBack?.(id, NEW_ROW);
    const params: SqlValue[] = read === undefined ? [] : [...read.params];
    const insertAt = params.length;
    params.push(...columns.values());
    const bumpAt = params.length;
    params.push(...clockBumpParams(type.table, input.now, input.shard));
    const eventAt = params.length;
    params.push(...eventInsertParams(input.event, 'record'));
    return { step: 'create', sql: this.createText(type, columns, input.guard, read?.sql, { insertAt, bumpAt, eventAt }), params };
  }

  /**
   * The one-statement create's text, the same string for every create of
   * the same shape, looked up without building any of it: its parts are
   * short, but the read-back makes it a few KB, and compiling and joining
   * them for each create, then hashing the result to find its prepared
   * statement's name, took about a tenth of the server's CPU a create.
   * The table, the columns written, the guard and the read-back decide the
   * whole text, the placeholders' numbers included.
   */
  private createText(
    type: ResourceType,
    columns: ColumnValues,
    guard: string | undefined,
    readSql: string | undefined,
    at: { readonly insertAt: number; readonly bumpAt: number; readonly eventAt: number },
  ): string {
    // By the read-back's text first: its compiler hands out the same string each time, whose hash V8 keeps.
    let byShape = this.createTexts.get(readSql ?? '');
    if (byShape === undefined) {
      byShape = new LruCache(CREATE_TEXTS_PER_READ);
      this.createTexts.set(readSql ?? '', byShape);
    }
    // Names come from GraphQL names, which hold no newline.
    const shape = `${type.table}\n${guard ?? ''}\n${[...columns.keys()].join('\n')}`;
    const known = byShape.get(shape);
    if (known !== undefined) return known;
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const clock = q('_clock');
    const text =
      `WITH ${q(NEW_ROW)} AS (${compileInsert(this.db.sql, type, columns, at.insertAt).sql} RETURNING *), ` +
      `${clock} AS (${compileClockBump(this.db.sql, guard, at.bumpAt)}), ${q('_event')} AS (${eventInsertSql(this.db.sql, at.eventAt, { column: 'record', sql: this.images.sql(type, NEW_ROW) })}) ` +
      `SELECT ${clock}.${q('table_name')}, ${clock}.${q('version')}, ${clock}.${q('changed_at')}${readSql === undefined ? '' : `, (${readSql}) AS ${q('j')}`} FROM ${clock}`;
    byShape.set(shape, text);
    return text;
  }
}
