import type { Filter } from '../../plan/read-plan.js';
import type { WriteRules } from '../../plan/write-plan.js';
import { deleteReach, type DeleteEdge } from '../../schema/delete-reach.js';
import type { Model, ResourceType } from '../../schema/model.js';
import type { Database, SqlValue } from '../dialect.js';
import { EVENTS_TABLE } from '../migrate/desired-schema.js';
import { EVENT_ROW } from '../outbox.js';
import type { FileKeyRead } from './compile-file-keys.js';
import { compileFilter } from './compile-filter.js';
import type { SqlStatement } from './compile-write.js';
import type { EventImages } from './event-images.js';
import { SqlContext } from './sql-context.js';

/** What the events of one batch of a cascade share: the prefix of their ids (each adds its record's id), type, cause and time. */
export interface CascadeEvents {
  readonly idPrefix: string;
  /** `post.deleted`, `order.updated`. */
  readonly type: string;
  readonly principal: string;
  readonly createdAt: string;
}

/**
 * The statements of a delete's cascade (docs/schema.md, "What a delete
 * does"). Each takes a set of ids as one JSON parameter, so the engine runs
 * one statement per relation and level of the cascade, however many records
 * it reaches: it finds the records pointing at the ones being deleted (and
 * which of them the asker may see and delete), then, once the whole cascade
 * is known and allowed, writes their events, reads their files' keys and
 * clears the SET_NULL relations, before the delete itself, whose foreign
 * keys remove the same rows.
 */
export interface CompiledCascade {
  /** The relations to look at, by the type they point at (empty: nothing can point at the deleted record). */
  readonly reach: ReadonlyMap<string, readonly DeleteEdge[]>;
  /**
   * CASCADE or SET_NULL: at most `limit` records of `edge.type` pointing at
   * `ids`, as rows `{id, visible, allowed}` (1 or 0: may the asker see it,
   * delete it). Locked where the database locks rows, so none changes
   * before the delete.
   */
  referrers(edge: DeleteEdge, ids: readonly string[], limit: number): SqlStatement;
  /** RESTRICT: one row `{total, visible}`: how many records point at `ids`, and how many of those the asker may see. */
  restricting(edge: DeleteEdge, ids: readonly string[]): SqlStatement;
  /** One event for each record `ids` of `type`, its image before the change (`previous`). */
  events(type: ResourceType, ids: readonly string[], batch: CascadeEvents): SqlStatement;
  /** The keys in the file columns of records `ids` of `type`; undefined when it has none. */
  fileKeys(type: ResourceType, ids: readonly string[]): FileKeyRead | undefined;
  /** SET_NULL: clears `edge.field` on records `ids` (and sets their `@updatedAt`). */
  clear(edge: DeleteEdge, ids: readonly string[], now: string): SqlStatement;
  /** After `clear`: the `record` image of the events `events` wrote for the same records. */
  completeEvents(type: ResourceType, ids: readonly string[], idPrefix: string): SqlStatement;
}

export function compileCascade(
  model: Model,
  db: Pick<Database, 'sql' | 'supports'>,
  images: EventImages,
  root: ResourceType,
  rules: WriteRules | undefined,
): CompiledCascade {
  const hooks = db.sql;
  const q = (name: string): string => hooks.quoteIdent(name);
  const lock = db.supports.rowLocks === true ? ' FOR UPDATE' : '';
  const params = rules?.params ?? [];
  /** The records of `edge.type` pointing at the ids, with `facts` over them; the ids bound after the rules' values. */
  const over = (edge: DeleteEdge, ids: readonly string[], facts: (ctx: SqlContext, alias: string) => string, tail: string): SqlStatement => {
    const ctx = new SqlContext(model, hooks);
    const alias = ctx.alias();
    const select = facts(ctx, alias);
    const where = `${ctx.ref(alias, edge.field.column)} IN (${hooks.idList(ctx.param({ param: params.length }))})`;
    const values = [...params, JSON.stringify(ids)];
    return { sql: `SELECT ${select} FROM ${ctx.table(edge.type)} ${alias} WHERE ${where}${tail}`, params: ctx.paramOrder.map((index) => values[index] as SqlValue) };
  };
  const fact = (ctx: SqlContext, type: ResourceType, alias: string, filter: Filter | undefined): string =>
    filter === undefined ? '1' : `CASE WHEN ${compileFilter(ctx, type, alias, filter)} THEN 1 ELSE 0 END`;
  /** `WITH <EVENT_ROW> AS (the rows of `type` with these ids) `, the placeholder first. */
  const rowsOf = (type: ResourceType, at: number): string => `WITH ${q(EVENT_ROW)} AS (SELECT * FROM ${q(type.table)} WHERE ${q('id')} IN (${hooks.idList(hooks.placeholder(at))})) `;
  const textAt = (i: number): string => `CAST(${hooks.placeholder(i)} AS TEXT)`;

  return {
    reach: deleteReach(model, root),

    referrers(edge, ids, limit) {
      const own = rules?.cascade?.[edge.type.name];
      return over(
        edge,
        ids,
        (ctx, alias) => `${ctx.ref(alias, 'id')} AS id, ${fact(ctx, edge.type, alias, own?.visible)} AS visible, ${fact(ctx, edge.type, alias, own?.allowed)} AS allowed`,
        ` LIMIT ${Math.floor(limit)}${lock}`,
      );
    },

    restricting(edge, ids) {
      const visible = rules?.cascade?.[edge.type.name]?.visible;
      return over(edge, ids, (ctx, alias) => `count(*) AS total, coalesce(sum(${fact(ctx, edge.type, alias, visible)}), 0) AS visible`, '');
    },

    events(type, ids, batch) {
      const columns = ['id', 'type', 'record_id', 'principal', 'record', 'previous', 'target', 'created_at'].map(q).join(', ');
      const createdAt = `CAST(${hooks.placeholder(4)} AS ${hooks.columnType('DateTime')})`;
      const sql =
        rowsOf(type, 0) +
        `INSERT INTO ${q(EVENTS_TABLE)} (${columns}) ` +
        `SELECT ${hooks.concat([textAt(1), `x.${q('id')}`])}, ${textAt(2)}, x.${q('id')}, ${textAt(3)}, NULL, x.${q('j')}, NULL, ${createdAt} ` +
        `FROM (${images.sql(type, EVENT_ROW, true)}) x`;
      return { sql, params: [JSON.stringify(ids), batch.idPrefix, batch.type, batch.principal, batch.createdAt] };
    },

    fileKeys(type, ids) {
      const columns = type.fields.flatMap((field) => (field.kind === 'file' ? [field.column] : []));
      if (columns.length === 0) return undefined;
      const sql = `SELECT ${columns.map(q).join(', ')} FROM ${q(type.table)} WHERE ${q('id')} IN (${hooks.idList(hooks.placeholder(0))})`;
      return { sql, params: [JSON.stringify(ids)], columns };
    },

    clear(edge, ids, now) {
      const updatedAt = edge.type.fields.flatMap((field) => (field.kind === 'scalar' && field.auto === 'updatedAt' ? [field.column] : []));
      const sets = [`${q(edge.field.column)} = NULL`, ...updatedAt.map((column, i) => `${q(column)} = ${hooks.placeholder(i)}`)];
      const sql = `UPDATE ${q(edge.type.table)} SET ${sets.join(', ')} WHERE ${q('id')} IN (${hooks.idList(hooks.placeholder(updatedAt.length))})`;
      return { sql, params: [...updatedAt.map(() => now), JSON.stringify(ids)] };
    },

    completeEvents(type, ids, idPrefix) {
      const events = q(EVENTS_TABLE);
      const image = `(SELECT x.${q('j')} FROM (${images.sql(type, EVENT_ROW, true)}) x WHERE x.${q('id')} = ${events}.${q('record_id')})`;
      const eventIds = `SELECT ${hooks.concat([textAt(1), `i.${q('id')}`])} FROM (${hooks.idList(hooks.placeholder(2))}) i`;
      const sql = `${rowsOf(type, 0)}UPDATE ${events} SET ${q('record')} = ${image} WHERE ${q('id')} IN (${eventIds})`;
      const list = JSON.stringify(ids);
      return { sql, params: [list, idPrefix, list] };
    },
  };
}
