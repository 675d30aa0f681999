import type { StoredEvent } from '../storage/outbox.js';

/** Who caused an event: never a credential or a token's claims. */
export interface EventPrincipal {
  readonly id: string | null;
  readonly role: string | null;
  readonly via: 'anonymous' | 'jwt' | 'api-key' | 'admin-key' | 'system';
}

/**
 * One committed change, as webhooks send it and subscribers receive it
 * (docs/events.md). `record` and `previous` are the REST representation
 * (`GET /<type>/<id>` without `fields`), as the admin role sees it.
 */
export interface EventMessage {
  /** Stable: the same in every delivery and replay (`webhook-id`). */
  readonly id: string;
  /** `post.created`, `post.updated`, `post.deleted`, `user.following.added`, `user.following.removed`. */
  readonly type: string;
  /** When the write happened (ISO 8601, UTC). */
  readonly timestamp: string;
  readonly principal: EventPrincipal;
  readonly data: {
    /** The record written (for a link, the one whose list changed). */
    readonly id: string;
    /** After the change; null for a delete. */
    readonly record: Readonly<Record<string, unknown>> | null;
    /** Before the change: updates and deletes only. */
    readonly previous?: Readonly<Record<string, unknown>> | null;
    /** Links: the record added to or removed from the list. */
    readonly target?: string;
  };
  /** Publication position: events are published in commit order; resume after one with `eventsAfter(position)`. */
  readonly position: number;
}

/**
 * The JSON text of an event without its position, spliced from the stored
 * texts (the record images are never parsed on the way out): the body every
 * webhook delivery of it sends, byte for byte, so a replay signs the same.
 */
export function eventPayload(event: StoredEvent): string {
  const data = [`"id":${JSON.stringify(event.recordId)}`, `"record":${event.record ?? 'null'}`];
  if (hasPrevious(event.type)) data.push(`"previous":${event.previous ?? 'null'}`);
  if (event.target !== null) data.push(`"target":${JSON.stringify(event.target)}`);
  return (
    `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.createdAt)},` +
    `"principal":${event.principal},"data":{${data.join(',')}}}`
  );
}

export function eventMessage(event: StoredEvent): EventMessage {
  return { ...(JSON.parse(eventPayload(event)) as Omit<EventMessage, 'position'>), position: event.published };
}

function hasPrevious(type: string): boolean {
  return type.endsWith('.updated') || type.endsWith('.deleted');
}
