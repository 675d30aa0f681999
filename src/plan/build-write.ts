import { ApiError } from '../errors/api-error.js';
import type { Model, ResourceType } from '../schema/model.js';
import type { WritePlan, WriteValues } from './write-plan.js';

/**
 * Builders of write plans, the counterpart of build-read.ts: both front-ends
 * describe a change in these terms, so whatever a write must carry besides
 * its values (the rules a principal must satisfy, values preset from it)
 * is added here, once, for both styles. Values come validated and coerced
 * by `validateInput`.
 */

export function planCreate(model: Model, typeName: string, values: WriteValues): WritePlan {
  return Object.freeze({ kind: 'create', type: resourceType(model, typeName).name, values });
}

/** `replace` is PUT: fields absent from `values` go back to their default or null. */
export function planUpdate(model: Model, typeName: string, id: string, values: WriteValues, replace = false): WritePlan {
  return Object.freeze({ kind: 'update', type: resourceType(model, typeName).name, id, values, replace });
}

export function planDelete(model: Model, typeName: string, id: string): WritePlan {
  return Object.freeze({ kind: 'delete', type: resourceType(model, typeName).name, id });
}

/** Adds or removes one many-to-many link, seen from `typeName.field` of record `id`. */
export function planLink(model: Model, kind: 'connect' | 'disconnect', typeName: string, field: string, id: string, targetId: string): WritePlan {
  const type = resourceType(model, typeName);
  if (type.fieldsByName.get(field)?.kind !== 'manyToMany') {
    throw new ApiError('QUERY_UNKNOWN_RELATION', { detail: `${type.name} has no many-to-many relation "${field}"` });
  }
  return Object.freeze({ kind, type: type.name, field, id, targetId });
}

function resourceType(model: Model, name: string): ResourceType {
  const type = model.typesByName.get(name);
  if (type === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No resource type ${name}` });
  return type;
}
