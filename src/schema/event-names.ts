import type { ManyToManyRelation, Model, ResourceType } from './model.js';

/**
 * The names of change events, in one place: the engine publishes them,
 * webhooks, `GET /events` and GraphQL's `postCreated` subscribe by them.
 * A type's events start with its name, first letter lower-cased (`Post` →
 * `post.created`, `OrderItem` → `orderItem.updated`, a many-to-many list's
 * `user.following.added`).
 */

/** What a record write announces. */
export const RECORD_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

/** `Post` → `post`, `OrderItem` → `orderItem`: the first part of a type's event types. */
export function eventPrefix(typeName: string): string {
  return typeName.charAt(0).toLowerCase() + typeName.slice(1);
}

/** `post.created`: the event type of a record write. */
export function recordEventType(typeName: string, action: RecordAction): string {
  return `${eventPrefix(typeName)}.${action}`;
}

/** `user.following.added`: the event type of a link added to or removed from a many-to-many list. */
export function linkEventType(typeName: string, field: string, action: 'added' | 'removed'): string {
  return `${eventPrefix(typeName)}.${field}.${action}`;
}

/** Every event type a type's writes publish: its record writes, and its many-to-many lists' links. */
export function typeEventTypes(type: ResourceType): string[] {
  const names: string[] = RECORD_ACTIONS.map((action) => recordEventType(type.name, action));
  for (const field of type.fields) {
    if (field.kind === 'manyToMany') for (const action of ['added', 'removed'] as const) names.push(linkEventType(type.name, field.name, action));
  }
  return names;
}

/** An event type name `@renamed` keeps: what it stands for now, and which renames make it old. */
export interface RenamedEventType {
  /** The name the events are published under. */
  readonly current: string;
  readonly type: ResourceType;
  /** The name holds the type's old name (`@renamed` on the type). */
  readonly oldType: boolean;
  /** The renamed many-to-many list whose old name the name holds, if any. */
  readonly oldField: ManyToManyRelation | undefined;
}

/**
 * The old event type names of renamed types and many-to-many lists, by old
 * name (`product.created` → `item.created`, `user.followers.added` →
 * `user.fans.added`): subscribers that name them keep hearing the events
 * while the directive is declared.
 *
 * Chosen: an event is published once, under the new name only (one event
 * and one id in the outbox, the log and every replay), and a subscriber
 * that asked for it only by its old name is sent it under that name, so a
 * client that dispatches on the type keeps working until it moves on.
 */
export function renamedEventTypes(model: Model): ReadonlyMap<string, RenamedEventType> {
  const renamed = new Map<string, RenamedEventType>();
  for (const type of model.types) {
    const typeNames = type.renamedFrom === undefined ? [type.name] : [type.name, type.renamedFrom];
    for (const typeName of typeNames) {
      const oldType = typeName !== type.name;
      if (oldType) {
        for (const action of RECORD_ACTIONS) renamed.set(recordEventType(typeName, action), { current: recordEventType(type.name, action), type, oldType, oldField: undefined });
      }
      for (const field of type.fields) {
        if (field.kind !== 'manyToMany') continue;
        for (const fieldName of field.renamedFrom === undefined ? [field.name] : [field.name, field.renamedFrom]) {
          const oldField = fieldName === field.name ? undefined : field;
          if (!oldType && oldField === undefined) continue;
          for (const action of ['added', 'removed'] as const) {
            renamed.set(linkEventType(typeName, fieldName, action), { current: linkEventType(type.name, field.name, action), type, oldType, oldField });
          }
        }
      }
    }
  }
  return renamed;
}
