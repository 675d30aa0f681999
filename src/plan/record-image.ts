import type { Model } from '../schema/model.js';
import { planReadOne, type FieldRequest } from './build-read.js';
import { DEFAULT_LIMITS } from './limits.js';
import type { Principal } from './principal.js';
import type { ReadPlan } from './read-plan.js';

/**
 * Who reads the record images of events: the admin role, because an event
 * is written once for every consumer; each consumer applies its own view
 * (webhooks are the operator's and see it whole, docs/events.md).
 */
export const EVENT_READER: Principal = Object.freeze({ id: null, role: null, claims: Object.freeze({}), admin: true, via: 'admin-key' });

/**
 * The plan of a record's REST representation as `GET /<type>/<id>` answers
 * it without `fields` or `include` (every column, file URL and to-one id),
 * read as the admin role: an event's `record` and `previous`. The id is not
 * bound: the engine reads it from a row it names (`ReadExecutor.readFrom`).
 */
export function planRecordImage(model: Model, typeName: string): ReadPlan {
  const type = model.typesByName.get(typeName);
  if (type === undefined) throw new Error(`no type ${typeName}`);
  // The same default selection as src/rest/query-params.ts (buildSelect without `fields`).
  const select: FieldRequest[] = type.fields
    .filter((field) => field.kind === 'scalar' || field.kind === 'file' || field.kind === 'toOne')
    .map((field) => ({ key: field.name, field: field.name, implicit: true }));
  return planReadOne(model, type.name, '', select, { limits: DEFAULT_LIMITS, fromText: false, principal: EVENT_READER });
}
