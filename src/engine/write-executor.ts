import { ApiError } from '../errors/api-error.js';
import type { WriteActor, WritePlan, WriteResult, WriteValues } from '../plan/write-plan.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import { compileRowRules } from '../storage/compile/compile-rule-check.js';
import { WriteCompiler, type CompiledWrite, type ReadBack } from '../storage/compile/compile-write-plan.js';
import type { Database, SqlRunner, SqlValue } from '../storage/dialect.js';
import type { EventValues } from '../storage/outbox.js';
import { newId } from '../util/ids.js';
import type { ChangeClock, ClockMove } from './change-clock.js';
import { eventTypeOf } from './event-images.js';
import { addFileKeys, keysLeftBehind } from './file-references.js';
import { DEFAULT_MAX_CASCADE, runCascade } from './run-cascade.js';

const SYSTEM_ACTOR: WriteActor = Object.freeze({ id: null, role: null, via: 'system' });

/** Deletes the stored files whose keys are given, where no record points at them any more. */
export type ReleaseFiles = (keys: readonly string[]) => Promise<void>;

/**
 * Runs write plans: storage compiles each into its statements (see
 * `WriteCompiler`), run here in one transaction holding the change itself,
 * the change-clock bump and the outbox event, so a write that is
 * acknowledged is also visible to caches and to event consumers, and a
 * failed one leaves no trace in any of them. (A create on PostgreSQL is all
 * three in one statement instead.) After COMMIT, the files the write
 * stopped pointing at are released.
 */
export class WriteExecutor {
  private readonly compiler: WriteCompiler;

  constructor(
    private readonly model: Model,
    private readonly db: Database,
    private readonly clock: ChangeClock,
    private readonly releaseFiles?: ReleaseFiles,
    /** Records one delete may remove or change through its relations, beyond itself. */
    private readonly maxCascade = DEFAULT_MAX_CASCADE,
  ) {
    this.compiler = new WriteCompiler(model, db);
  }

  /**
   * `check` runs first inside the transaction (If-Match): the row is locked
   * before it reads, so two writers holding the same ETag cannot both pass.
   */
  async write(plan: WritePlan, check?: (tx: SqlRunner) => Promise<void>, readBack?: ReadBack): Promise<WriteResult> {
    const type = this.model.typesByName.get(plan.type);
    if (type === undefined) throw new Error(`write plan names unknown type ${plan.type}`);
    const result = await this.clock.write((guard) => {
      const now = new Date().toISOString();
      const { id, columns } = this.columnsOf(type, plan, now);
      const compiled = this.compiler.compile({
        plan,
        type,
        id,
        columns,
        event: this.eventValues(type, plan, id, now, null),
        now,
        guard,
        shard: this.clock.nextShard(),
        precondition: check !== undefined,
        releasesFiles: this.releaseFiles !== undefined,
        readBack,
      });
      return compiled.transaction ? this.inTransaction(type, plan, id, compiled, check) : this.inOneStatement(id, compiled);
    });
    return result;
  }

  /** The record's id (a create's new one) and the columns the write stores (none for a delete or a link). */
  private columnsOf(type: ResourceType, plan: WritePlan, now: string): { id: string; columns?: Map<string, SqlValue> } {
    if (plan.kind === 'create') return this.newRecord(type, plan.values, now);
    if (plan.kind !== 'update') return { id: plan.id };
    // PUT's resets are in `values` already (planUpdate): only the fields the caller may write.
    const columns = new Map<string, SqlValue>();
    this.setColumns(type, plan.values, columns);
    for (const field of type.fields) {
      if (field.kind === 'scalar' && field.auto === 'updatedAt') columns.set(field.column, now);
    }
    return { id: plan.id, columns };
  }

  private async inTransaction(type: ResourceType, plan: WritePlan, id: string, compiled: CompiledWrite, check?: (tx: SqlRunner) => Promise<void>): Promise<WriteResult> {
    let files = new Set<string>();
    let moves: ClockMove[] = [];
    const result = await this.db.transaction(async (tx): Promise<WriteResult> => {
      files = new Set();
      moves = [];
      let previous: string | null = null;
      for (const step of compiled.steps) {
        switch (step.step) {
          case 'lock':
            await tx.run(step.sql, step.params);
            break;
          case 'rules': {
            // 404 when the asker may not see the stored record (or it is gone), 403 when they may see it but not change it so.
            const [row] = await tx.all(step.sql, step.params);
            if (row === undefined || Number(row['visible']) !== 1) throw notFound(step.type, step.id);
            if (Number(row['allowed']) !== 1) throw new ApiError('FORBIDDEN', { detail: `You may not change ${step.type} ${step.id}` });
            break;
          }
          case 'precondition':
            await check?.(tx);
            break;
          case 'unchanged': {
            const [row] = await tx.all(step.sql, step.params);
            if (row === undefined) throw notFound(step.type, step.id);
            if (Number(row['allowed']) !== 1) throw immutable(step.type, step.fields);
            break;
          }
          case 'reference': {
            const [row] = await tx.all(step.sql, step.params);
            if (row === undefined || Number(row['visible']) !== 1) throw targetNotFound(step.type, step.field, step.target);
            break;
          }
          case 'cascade':
            await runCascade(tx, step.cascade, {
              root: type,
              id,
              limit: this.maxCascade,
              principal: step.principal,
              now: step.now,
              files: this.releaseFiles === undefined ? undefined : files,
            });
            break;
          case 'files':
            addFileKeys(files, await tx.all(step.sql, step.params), step.columns);
            break;
          case 'previous': {
            const [row] = await tx.all<{ j: string | null }>(step.sql, step.params);
            previous = row?.j ?? null;
            break;
          }
          case 'exists':
            if ((await tx.all(step.sql, step.params)).length === 0) throw notFound(step.type, step.id);
            break;
          case 'apply': {
            const { changes } = await tx.run(step.sql, step.params).catch((error: unknown) => {
              throw plan.kind === 'delete' ? referencedStill(type, error) : error;
            });
            if (changes === 0 && step.none === 'notFound') throw notFound(type.name, id);
            if (changes === 0 && step.none === 'unchanged') return { id, changed: false };
            break;
          }
          case 'check':
            if ((await tx.all(step.sql, step.params)).length === 0) {
              throw new ApiError('FORBIDDEN', { detail: `You may not ${plan.kind} ${type.name} records with these values` });
            }
            break;
          case 'clock': {
            const [row] = await tx.all<ClockMove>(step.sql, step.params);
            if (row !== undefined) moves.push(row);
            break;
          }
          case 'event': {
            const params = [...step.params];
            if (step.previousParam !== undefined) params[step.previousParam] = previous;
            await tx.run(step.sql, params);
            break;
          }
          case 'create':
            throw new Error('a one-statement create in a transaction');
        }
      }
      return { id, changed: compiled.tables.length > 0 };
    });
    this.clock.noteCommitted(moves);
    // After COMMIT: files the write stopped pointing at go, unless another record shares them.
    const leftBehind = keysLeftBehind(files, type, plan);
    if (leftBehind.length > 0) await this.releaseFiles?.(leftBehind);
    return result;
  }

  /** The write as its one statement (a create on PostgreSQL), which commits alone. */
  private async inOneStatement(id: string, compiled: CompiledWrite): Promise<WriteResult> {
    const [step] = compiled.steps;
    if (step?.step !== 'create') throw new Error('a one-statement write without its statement');
    const rows = await this.db.all<ClockMove & { j?: string | null }>(step.sql, step.params);
    this.clock.noteCommitted(rows);
    const record = rows[0]?.j;
    return typeof record === 'string' ? { id, changed: true, record } : { id, changed: true };
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
    const { sql, params } = compileRowRules(this.model, this.db.sql, type, plan.id, plan.rules);
    const [row] = await this.db.all(sql, params);
    if (row === undefined || Number(row['visible']) !== 1) throw notFound(type.name, plan.id);
    if (Number(row['allowed']) !== 1) throw new ApiError('FORBIDDEN', { detail: `You may not change ${type.name} ${plan.id}` });
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

/**
 * A delete the database refused for a row pointing at the record (SQLite
 * names no constraint; PostgreSQL's is mapped already): one inserted since
 * the cascade looked, or written outside Diglot. A conflict, never a 500.
 */
function referencedStill(type: ResourceType, error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'RELATION_TARGET_NOT_FOUND') return error;
  return new ApiError('RELATION_CONFLICT', { detail: `Other records refer to this ${type.name}: delete or change them first.`, cause: error });
}

function immutable(type: string, fields: readonly string[]): ApiError {
  const names = fields.map((name) => `${type}.${name}`).join(', ');
  return new ApiError('INPUT_IMMUTABLE_FIELD', {
    detail: `${names} ${fields.length === 1 ? 'is' : 'are'} set once, when the record is created: send the value it holds, or leave it out`,
    errors: fields.map((name) => ({ pointer: `/${name}`, code: 'INPUT_IMMUTABLE_FIELD' as const, detail: `${name} cannot be changed` })),
  });
}

/** As the foreign key's failure reads on PostgreSQL (map-db-error.ts), pointer included: a hidden target and a missing one look alike. */
function targetNotFound(type: string, field: string, target: string): ApiError {
  const detail = `${type}.${field}: no ${target} has this id.`;
  return new ApiError('RELATION_TARGET_NOT_FOUND', { detail, errors: [{ pointer: `/${field}`, code: 'RELATION_TARGET_NOT_FOUND', detail }] });
}

function notFound(type: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', { detail: `${type} ${id} does not exist` });
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
