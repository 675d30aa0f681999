import { ApiError } from '../errors/api-error.js';
import type { DeleteEdge } from '../schema/delete-reach.js';
import type { ResourceType } from '../schema/model.js';
import type { CompiledCascade } from '../storage/compile/compile-cascade.js';
import type { SqlStatement } from '../storage/compile/compile-write.js';
import type { SqlRunner } from '../storage/dialect.js';
import { newId } from '../util/ids.js';
import { eventTypeOf } from './event-images.js';
import { addFileKeys } from './file-references.js';

/** The records a delete takes with it by default, beyond the one deleted: past it, 409 RELATION_CASCADE_TOO_LARGE. */
export const DEFAULT_MAX_CASCADE = 1000;

export interface CascadeRun {
  readonly root: ResourceType;
  readonly id: string;
  /** Records the cascade may remove or change, beyond the root (`--max-cascade`). */
  readonly limit: number;
  /** The actor of the delete, as its events name it (JSON text). */
  readonly principal: string;
  readonly now: string;
  /** Where the keys of the removed records' files go, when the engine releases files. */
  readonly files: Set<string> | undefined;
}

/**
 * Plans a delete's cascade from the data, inside the delete's transaction
 * and under its lock, then carries out what the database's foreign keys
 * will not: following each relation that points at the records being
 * deleted, one statement per relation and level, it refuses the delete
 * (RESTRICT: 409 RELATION_CONFLICT; a record the asker may not delete: 403
 * RELATION_CASCADE_FORBIDDEN; past `limit`: 409 RELATION_CASCADE_TOO_LARGE)
 * before anything is changed; otherwise it writes an event for every record
 * removed or cleared, reads the keys of their files, and clears the SET_NULL
 * relations. The delete that follows removes the CASCADE rows through the
 * foreign keys, which say the same.
 */
export async function runCascade(tx: SqlRunner, cascade: CompiledCascade, run: CascadeRun): Promise<void> {
  const removed = new Map<string, { type: ResourceType; ids: Set<string> }>([[run.root.name, { type: run.root, ids: new Set([run.id]) }]]);
  const cleared = new Map<DeleteEdge, Set<string>>();
  let touched = 0;
  let frontier = new Map<string, string[]>([[run.root.name, [run.id]]]);
  while (frontier.size > 0) {
    const next = new Map<string, string[]>();
    for (const [target, ids] of frontier) {
      for (const edge of cascade.reach.get(target) ?? []) {
        if (edge.field.onDelete === 'RESTRICT') {
          const { sql, params } = cascade.restricting(edge, ids);
          const [row] = await tx.all(sql, params);
          if (Number(row?.['total'] ?? 0) > 0) throw relationConflict(edge, Number(row?.['visible'] ?? 0));
          continue;
        }
        // One more than the limit, the same text every time: enough to tell the limit passed.
        const { sql, params } = cascade.referrers(edge, ids, run.limit + 1);
        const rows = await tx.all(sql, params);
        const seen = edge.field.onDelete === 'CASCADE' ? entryOf(removed, edge.type).ids : setOf(cleared, edge);
        for (const row of rows) {
          const id = String(row['id']);
          if (seen.has(id)) continue;
          if (edge.field.onDelete === 'CASCADE' && (Number(row['visible']) !== 1 || Number(row['allowed']) !== 1)) throw cascadeForbidden(edge);
          seen.add(id);
          touched += 1;
          if (edge.field.onDelete === 'CASCADE') next.set(edge.type.name, [...(next.get(edge.type.name) ?? []), id]);
        }
        if (touched > run.limit) throw tooLarge(run, edge);
      }
    }
    frontier = next;
  }

  // Allowed: the events of the records cleared (a record removed as well is only removed), then of those removed.
  for (const [edge, ids] of cleared) {
    const left = [...ids].filter((id) => removed.get(edge.type.name)?.ids.has(id) !== true);
    if (left.length === 0) continue;
    const idPrefix = `evt_${newId()}_`;
    await exec(tx, cascade.events(edge.type, left, batch(run, edge.type, 'updated', idPrefix)));
    await exec(tx, cascade.clear(edge, left, run.now));
    await exec(tx, cascade.completeEvents(edge.type, left, idPrefix));
  }
  for (const { type, ids } of removed.values()) {
    if (type === run.root && ids.size === 1) continue;
    const list = [...ids].filter((id) => type !== run.root || id !== run.id);
    await exec(tx, cascade.events(type, list, batch(run, type, 'deleted', `evt_${newId()}_`)));
    const keys = run.files === undefined ? undefined : cascade.fileKeys(type, list);
    if (keys !== undefined && run.files !== undefined) addFileKeys(run.files, await tx.all(keys.sql, keys.params), keys.columns);
  }
}

function batch(run: CascadeRun, type: ResourceType, action: 'updated' | 'deleted', idPrefix: string): Parameters<CompiledCascade['events']>[2] {
  return { idPrefix, type: `${eventTypeOf(type)}.${action}`, principal: run.principal, createdAt: run.now };
}

async function exec(tx: SqlRunner, statement: SqlStatement): Promise<void> {
  await tx.run(statement.sql, statement.params);
}

function entryOf(removed: Map<string, { type: ResourceType; ids: Set<string> }>, type: ResourceType): { type: ResourceType; ids: Set<string> } {
  let entry = removed.get(type.name);
  if (entry === undefined) {
    entry = { type, ids: new Set() };
    removed.set(type.name, entry);
  }
  return entry;
}

function setOf(cleared: Map<DeleteEdge, Set<string>>, edge: DeleteEdge): Set<string> {
  let ids = cleared.get(edge);
  if (ids === undefined) {
    ids = new Set();
    cleared.set(edge, ids);
  }
  return ids;
}

/** `Order.customer`: how problems name a relation. */
function relationName(edge: DeleteEdge): string {
  return `${edge.type.name}.${edge.field.name}`;
}

/**
 * RESTRICT: the records holding on are counted as far as the asker may see
 * them; when they see none, the refusal says only that some exist, which
 * the refusal itself cannot help telling (docs/schema.md, "What a delete does").
 */
export function relationConflict(edge: DeleteEdge, visible: number | undefined): ApiError {
  const relation = relationName(edge);
  const target = edge.field.target;
  const counted = visible !== undefined && visible > 0;
  const what = counted ? `${visible} ${noun(edge.type, visible)}` : `Records of ${edge.type.name}`;
  const verb = visible === 1 ? 'refers' : 'refer';
  return new ApiError('RELATION_CONFLICT', {
    detail: `${what} (${relation}) ${verb} to this ${target}: delete or change them first, or declare @relation(onDelete: CASCADE) or SET_NULL on ${relation}.`,
    extensions: { relation, type: edge.type.name, field: edge.field.name, onDelete: 'RESTRICT', ...(counted ? { count: visible } : {}) },
  });
}

function cascadeForbidden(edge: DeleteEdge): ApiError {
  const relation = relationName(edge);
  return new ApiError('RELATION_CASCADE_FORBIDDEN', {
    detail: `Deleting this ${edge.field.target} would delete ${edge.type.name} records (${relation}, onDelete: CASCADE) that you may not delete.`,
    extensions: { relation, type: edge.type.name, field: edge.field.name, onDelete: 'CASCADE' },
  });
}

function tooLarge(run: CascadeRun, edge: DeleteEdge): ApiError {
  return new ApiError('RELATION_CASCADE_TOO_LARGE', {
    detail: `Deleting this ${run.root.name} would remove or change more than ${run.limit} other records (reached through ${relationName(edge)}); delete them in smaller steps first.`,
    extensions: { relation: relationName(edge), limit: run.limit },
  });
}

/** `orders`, `order`: the type's plural (`orderItems`) or its name, lower-case first, by count. */
function noun(type: ResourceType, count: number): string {
  return count === 1 ? type.name.charAt(0).toLowerCase() + type.name.slice(1) : type.plural;
}
