import type { Model, ResourceType, ToOneRelation } from './model.js';

/** A to-one relation of `type` that a delete must look at: its records point at a record being deleted. */
export interface DeleteEdge {
  readonly type: ResourceType;
  readonly field: ToOneRelation;
}

/**
 * Every to-one relation a delete of a `root` record must look at, by the
 * type it points at: those pointing at the root's type and, down each
 * CASCADE, at the types of the records removed with it. A type reached
 * twice is listed once; a cycle (a self-relation) is followed by the engine
 * row by row, not here. Empty when nothing points at the root's type.
 */
export function deleteReach(model: Model, root: ResourceType): ReadonlyMap<string, readonly DeleteEdge[]> {
  let byRoot = reaches.get(model);
  if (byRoot === undefined) {
    byRoot = new Map();
    reaches.set(model, byRoot);
  }
  const known = byRoot.get(root.name);
  if (known !== undefined) return known;
  const reach = new Map<string, DeleteEdge[]>();
  const pending = [root];
  const queued = new Set([root.name]);
  while (pending.length > 0) {
    const target = pending.shift() as ResourceType;
    const edges: DeleteEdge[] = [];
    for (const type of model.types) {
      for (const field of type.fields) {
        if (field.kind !== 'toOne' || field.target !== target.name) continue;
        edges.push({ type, field });
        if (field.onDelete === 'CASCADE' && !queued.has(type.name)) {
          queued.add(type.name);
          pending.push(type);
        }
      }
    }
    if (edges.length > 0) reach.set(target.name, edges);
  }
  byRoot.set(root.name, reach);
  return reach;
}

/** The types whose records a delete of a `root` record may remove (CASCADE) or change (SET_NULL), the root's own included. */
export function deleteTouches(model: Model, root: ResourceType): { readonly removed: readonly ResourceType[]; readonly changed: readonly ResourceType[] } {
  const removed = new Map([[root.name, root]]);
  const changed = new Map<string, ResourceType>();
  for (const edges of deleteReach(model, root).values()) {
    for (const { type, field } of edges) {
      if (field.onDelete === 'CASCADE') removed.set(type.name, type);
      if (field.onDelete === 'SET_NULL') changed.set(type.name, type);
    }
  }
  return { removed: [...removed.values()], changed: [...changed.values()] };
}

const reaches = new WeakMap<Model, Map<string, ReadonlyMap<string, readonly DeleteEdge[]>>>();
