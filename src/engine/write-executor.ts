import { ApiError } from '../errors/api-error.js';
import type { UnchangedCheck, WriteActor, WritePlan, WriteResult, WriteRules, WriteValues } from '../plan/write-plan.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
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
} from '../storage/compile/compile-write.js';
import { compileRowCheck, compileRowRules } from '../storage/compile/compile-rule-check.js';
import type { Database, SqlRunner, SqlValue } from '../storage/dialect.js';
import { EVENT_ROW, eventInsertParams, eventInsertSql, eventRowPrefix, type EventValues } from '../storage/outbox.js';
import { newId } from '../util/ids.js';
import { LruCache } from '../util/lru-cache.js';
import type { ChangeClock, ClockMove } from './change-clock.js';
import { EventImages, eventTypeOf } from './event-images.js';
import { keysLeftBehind, touchesFiles } from './file-references.js';

/** Told after each commit that recorded an event (the event machinery wakes up). */
export type OnCommitted = () => void;

const SYSTEM_ACTOR: WriteActor = Object.freeze({ id: null, role: null, via: 'system' });

/** Deletes the stored files whose keys are given, where no record points at them any more. */
export type ReleaseFiles = (keys: readonly string[]) => Promise<void>;

/** The read-back of a created record as a SELECT over `source`, the `WITH` clause holding its new row. */
export type ReadBack = (id: string, source: string) => SqlStatement;

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
 * Runs write plans. Each write is one transaction holding the change itself,
 * the change-clock bump and the outbox event, so a write that is acknowledged
 * is also visible to caches and to event consumers, and a failed one leaves
 * no trace in any of them. (A create on PostgreSQL is all three in one
 * statement instead: see `createInOneStatement`.)
 */
export class WriteExecutor {
  /** One-statement create texts, by read-back text, then by table, guard and columns (see `createText`). */
  private readonly createTexts = new LruCache<string, LruCache<string, string>>(CREATE_TEXT_READS);
  /** Event inserts by table, image column and first placeholder (a handful per type). */
  private readonly eventTexts = new LruCache<string, string>(256);
  private readonly images: EventImages;

  constructor(
    private readonly model: Model,
    private readonly db: Database,
    private readonly clock: ChangeClock,
    private readonly releaseFiles?: ReleaseFiles,
    private readonly onCommitted?: OnCommitted,
  ) {
    this.images = new EventImages(model, db.sql);
  }

  /**
   * `check` runs first inside the transaction (If-Match): the row is locked
   * before it reads, so two writers holding the same ETag cannot both pass.
   */
  async write(plan: WritePlan, check?: (tx: SqlRunner) => Promise<void>, readBack?: ReadBack): Promise<WriteResult> {
    const type = this.model.typesByName.get(plan.type);
    if (type === undefined) throw new Error(`write plan names unknown type ${plan.type}`);
    const result = await this.clock.write((guard) =>
      // A create with a rule to check on the written row takes the transaction, which can check before it commits.
      plan.kind === 'create' && this.db.supports.writableCte && plan.rules?.check === undefined && plan.rules?.references === undefined
        ? this.createInOneStatement(type, plan, guard, readBack)
        : this.inTransaction(type, plan, guard, check),
    );
    if (result.changed) this.onCommitted?.();
    return result;
  }

  private async inTransaction(type: ResourceType, plan: WritePlan, guard: string | undefined, check?: (tx: SqlRunner) => Promise<void>): Promise<WriteResult> {
    const files = this.releaseFiles !== undefined && touchesFiles(this.model, type, plan);
    let leftBehind: readonly string[] = [];
    let moves: ClockMove[] = [];
    const result = await this.db.transaction(async (tx) => {
      const unchanged = plan.kind === 'update' ? plan.unchanged : undefined;
      if ((check !== undefined || files || plan.rules !== undefined || unchanged !== undefined) && plan.kind !== 'create') {
        // A no-op update takes the row lock on PostgreSQL; SQLite's write transaction is already exclusive.
        const id = this.db.sql.quoteIdent('id');
        await tx.run(`UPDATE ${this.db.sql.quoteIdent(type.table)} SET ${id} = ${id} WHERE ${id} = ${this.db.sql.placeholder(0)}`, [plan.id]);
        // The rules are checked on the committed row, under its lock: an owner changed meanwhile is seen.
        if (plan.rules !== undefined) await this.checkStoredRow(tx, type, plan.id, plan.rules);
        if (check !== undefined) await check(tx);
        if (unchanged !== undefined) await this.checkUnchanged(tx, type, plan.id, unchanged);
      }
      if (plan.rules?.references !== undefined && (plan.kind === 'create' || plan.kind === 'update')) {
        await this.checkReferences(tx, type, plan.values, plan.rules);
      }
      // Read under that lock, so a concurrent write cannot swap a file in between unseen.
      if (files) leftBehind = await keysLeftBehind(tx, this.model, this.db.sql, type, plan);
      // The event's `previous`: an update reads it first (one statement); a delete records its whole event first (none extra).
      const previous = plan.kind === 'update' ? await this.readImage(tx, type, plan.id) : null;
      if (plan.kind === 'delete') await this.recordEvent(tx, type, plan, plan.id, 'previous', null);
      const outcome = await this.apply(tx, type, plan);
      const written = plan.rules?.check;
      if (written !== undefined && (plan.kind === 'create' || plan.kind === 'update')) {
        const found = await rows(tx, compileRowCheck(this.model, this.db.sql, type, outcome.result.id, plan.rules as WriteRules, written));
        if (found.length === 0) throw new ApiError('FORBIDDEN', { detail: `You may not ${plan.kind} ${type.name} records with these values` });
      }
      if (outcome.tables.length > 0) {
        moves = await this.clock.bump(tx, outcome.tables, guard);
        if (plan.kind !== 'delete') await this.recordEvent(tx, type, plan, outcome.result.id, 'record', previous);
      }
      return outcome.result;
    });
    this.clock.noteCommitted(moves);
    // After COMMIT: files the write stopped pointing at go, unless another record shares them.
    if (leftBehind.length > 0) await this.releaseFiles?.(leftBehind);
    return result;
  }

  /**
   * The stored-record rules of an update or delete, checked ahead of the
   * write (404 / 403 as the write itself would answer): for a request that
   * is about to receive files, so a stranger's files are never stored. One
   * statement, outside any transaction; the write checks again under its lock.
   */
  async precheck(plan: WritePlan): Promise<void> {
    if ((plan.kind !== 'update' && plan.kind !== 'delete') || plan.rules === undefined) return;
    const type = this.model.typesByName.get(plan.type);
    if (type === undefined) throw new Error(`write plan names unknown type ${plan.type}`);
    await this.checkStoredRow(this.db, type, plan.id, plan.rules);
  }

  /** 404 when the asker may not see the stored record (or it is gone), 403 when they may see it but not change it so. */
  private async checkStoredRow(tx: SqlRunner, type: ResourceType, id: string, rules: WriteRules): Promise<void> {
    const [row] = await rows(tx, compileRowRules(this.model, this.db.sql, type, id, rules));
    if (row === undefined || Number(row['visible']) !== 1) throw notFound(type, id);
    if (Number(row['allowed']) !== 1) throw new ApiError('FORBIDDEN', { detail: `You may not change ${type.name} ${id}` });
  }

  /** An update's `@immutable` fields: 404 when the record is gone, 409 when a value differs from the stored one. */
  private async checkUnchanged(tx: SqlRunner, type: ResourceType, id: string, unchanged: UnchangedCheck): Promise<void> {
    const [row] = await rows(tx, compileRowRules(this.model, this.db.sql, type, id, { params: unchanged.params, allowed: unchanged.filter }));
    if (row === undefined) throw notFound(type, id);
    if (Number(row['allowed']) === 1) return;
    const names = unchanged.fields.map((name) => `${type.name}.${name}`).join(', ');
    throw new ApiError('INPUT_IMMUTABLE_FIELD', {
      detail: `${names} ${unchanged.fields.length === 1 ? 'is' : 'are'} set once, when the record is created: send the value it holds, or leave it out`,
      errors: unchanged.fields.map((name) => ({ pointer: `/${name}`, code: 'INPUT_IMMUTABLE_FIELD' as const, detail: `${name} cannot be changed` })),
    });
  }

  /**
   * Each to-one value whose target the asker may not see fails as a value
   * naming no record would at the foreign key (PostgreSQL's wording, with
   * its pointer): one statement per such field, only under rules.
   */
  private async checkReferences(tx: SqlRunner, type: ResourceType, values: WriteValues, rules: WriteRules): Promise<void> {
    for (const [name, visible] of Object.entries(rules.references ?? {})) {
      const field = type.fieldsByName.get(name);
      const targetId = values[name];
      if (field?.kind !== 'toOne' || typeof targetId !== 'string') continue;
      const target = this.model.typesByName.get(field.target) as ResourceType;
      const [row] = await rows(tx, compileRowRules(this.model, this.db.sql, target, targetId, { params: rules.params, visible }));
      if (row === undefined || Number(row['visible']) !== 1) {
        const detail = `${type.name}.${name}: no ${target.name} has this id.`;
        throw new ApiError('RELATION_TARGET_NOT_FOUND', { detail, errors: [{ pointer: `/${name}`, code: 'RELATION_TARGET_NOT_FOUND', detail }] });
      }
    }
  }

  private async apply(
    tx: SqlRunner,
    type: ResourceType,
    plan: WritePlan,
  ): Promise<{ result: WriteResult; tables: readonly string[] }> {
    const sql = this.db.sql;
    const now = new Date().toISOString();
    switch (plan.kind) {
      case 'create': {
        const { id, columns } = this.newRecord(type, plan.values, now);
        await run(tx, compileInsert(sql, type, columns));
        return { result: { id, changed: true }, tables: [type.table] };
      }
      case 'update': {
        const columns = new Map<string, SqlValue>();
        this.setColumns(type, plan.values, columns);
        for (const field of type.fields) {
          if (field.kind === 'scalar' && field.auto === 'updatedAt') columns.set(field.column, now);
        }
        if (columns.size === 0) {
          await this.mustExist(tx, type, plan.id);
          return { result: { id: plan.id, changed: false }, tables: [] };
        }
        const { changes } = await run(tx, compileUpdate(sql, type, plan.id, columns));
        if (changes === 0) throw notFound(type, plan.id);
        return { result: { id: plan.id, changed: true }, tables: [type.table] };
      }
      case 'delete': {
        const { changes } = await run(tx, compileDelete(sql, type, plan.id));
        if (changes === 0) throw notFound(type, plan.id);
        return { result: { id: plan.id, changed: true }, tables: affectedByDelete(this.model, type) };
      }
      case 'connect':
      case 'disconnect': {
        const field = type.fieldsByName.get(plan.field);
        if (field?.kind !== 'manyToMany') throw new Error(`${type.name}.${plan.field} is not a many-to-many relation`);
        await this.mustExist(tx, type, plan.id);
        const target = this.model.typesByName.get(field.target) as ResourceType;
        if (plan.rules?.target === undefined) await this.mustExist(tx, target, plan.targetId);
        else await this.checkStoredRow(tx, target, plan.targetId, { params: plan.rules.params, visible: plan.rules.target });
        const statement =
          plan.kind === 'connect'
            ? compileLink(sql, field, plan.id, plan.targetId)
            : compileUnlink(sql, field, plan.id, plan.targetId);
        const { changes } = await run(tx, statement);
        const changed = changes > 0;
        return { result: { id: plan.id, changed }, tables: changed ? [field.joinTable] : [] };
      }
    }
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
  private async createInOneStatement(type: ResourceType, plan: WritePlan & { kind: 'create' }, guard: string | undefined, readBack?: ReadBack): Promise<WriteResult> {
    const now = new Date().toISOString();
    const { id, columns } = this.newRecord(type, plan.values, now);
    const read = readBack?.(id, NEW_ROW);
    const params: SqlValue[] = read === undefined ? [] : [...read.params];
    const insertAt = params.length;
    params.push(...columns.values());
    const bumpAt = params.length;
    params.push(...this.clock.bumpParams(type.table, now));
    const eventAt = params.length;
    params.push(...eventInsertParams(this.eventValues(type, plan, id, now, null), 'record'));
    const text = this.createText(type, columns, guard, read?.sql, { insertAt, bumpAt, eventAt });
    const rows = await this.db.all<ClockMove & { j?: string | null }>(text, params);
    this.clock.noteCommitted(rows);
    const record = rows[0]?.j;
    return typeof record === 'string' ? { id, changed: true, record } : { id, changed: true };
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
      `${clock} AS (${this.clock.bumpSql(guard, at.bumpAt)}), ${q('_event')} AS (${eventInsertSql(this.db.sql, at.eventAt, { column: 'record', sql: this.images.sql(type, NEW_ROW) })}) ` +
      `SELECT ${clock}.${q('table_name')}, ${clock}.${q('version')}, ${clock}.${q('changed_at')}${readSql === undefined ? '' : `, (${readSql}) AS ${q('j')}`} FROM ${clock}`;
    byShape.set(shape, text);
    return text;
  }

  /** A new record's id, and its columns: the id, its automatic timestamps and the input. */
  private newRecord(type: ResourceType, values: WriteValues, now: string): { id: string; columns: Map<string, SqlValue> } {
    const id = newId();
    const columns = new Map<string, SqlValue>([['id', id]]);
    for (const field of type.fields) {
      if (field.kind === 'scalar' && (field.auto === 'createdAt' || field.auto === 'updatedAt')) columns.set(field.column, now);
    }
    this.setColumns(type, values, columns);
    return { id, columns };
  }

  /** Validated input → stored column values. */
  private setColumns(type: ResourceType, values: WriteValues, columns: Map<string, SqlValue>): void {
    for (const [name, value] of Object.entries(values)) {
      const field = type.fieldsByName.get(name);
      if (field === undefined) throw new Error(`validated input names unknown field ${type.name}.${name}`);
      const column = storedColumn(field);
      if (column === undefined) continue;
      columns.set(column, toStored(field, value));
    }
  }

  private async mustExist(tx: SqlRunner, type: ResourceType, id: string): Promise<void> {
    const rows = await tx.all(compileExists(this.db.sql, type, id).sql, [id]);
    if (rows.length === 0) throw notFound(type, id);
  }

  /** The record's REST representation now, in this transaction (null when it does not exist). */
  private async readImage(tx: SqlRunner, type: ResourceType, id: string): Promise<string | null> {
    const key = `${type.table}\nread`;
    let sql = this.eventTexts.get(key);
    if (sql === undefined) {
      sql = eventRowPrefix(this.db, type.table) + this.images.sql(type, EVENT_ROW);
      this.eventTexts.set(key, sql);
    }
    const [row] = await tx.all<{ j: string | null }>(sql, [id]);
    return row?.j ?? null;
  }

  /**
   * The write's event, its `image` column (`record` after the change, or a
   * delete's `previous`) rendered from the row by the insert itself.
   */
  private async recordEvent(tx: SqlRunner, type: ResourceType, plan: WritePlan, id: string, image: 'record' | 'previous', previous: string | null): Promise<void> {
    const key = `${type.table}\n${image}`;
    let sql = this.eventTexts.get(key);
    if (sql === undefined) {
      sql = eventRowPrefix(this.db, type.table) + eventInsertSql(this.db.sql, 1, { column: image, sql: this.images.sql(type, EVENT_ROW) });
      this.eventTexts.set(key, sql);
    }
    await tx.run(sql, [id, ...eventInsertParams(this.eventValues(type, plan, id, new Date().toISOString(), previous), image)]);
  }

  /** A write's event, but for its images. */
  private eventValues(type: ResourceType, plan: WritePlan, id: string, now: string, previous: string | null): EventValues {
    const link = plan.kind === 'connect' || plan.kind === 'disconnect';
    const action = link ? `${plan.field}.${plan.kind === 'connect' ? 'added' : 'removed'}` : `${plan.kind}d`;
    return {
      id: `evt_${newId()}`,
      type: `${eventTypeOf(type)}.${action}`,
      recordId: id,
      principal: JSON.stringify(plan.actor ?? SYSTEM_ACTOR),
      record: null,
      previous,
      target: link ? plan.targetId : null,
      createdAt: now,
    };
  }
}

function run(tx: SqlRunner, statement: SqlStatement): Promise<{ readonly changes: number }> {
  return tx.run(statement.sql, statement.params);
}

function rows(tx: SqlRunner, statement: SqlStatement): Promise<Record<string, unknown>[]> {
  return tx.all(statement.sql, statement.params);
}

function notFound(type: ResourceType, id: string): ApiError {
  return new ApiError('NOT_FOUND', { detail: `${type.name} ${id} does not exist` });
}

function storedColumn(field: Field): string | undefined {
  return field.kind === 'scalar' || field.kind === 'toOne' || field.kind === 'file' ? field.column : undefined;
}

/** A validated JS value as the driver stores it. */
function toStored(field: Field, value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (field.kind === 'scalar' && (field.list || field.scalar === 'JSON')) return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  return value as SqlValue;
}
