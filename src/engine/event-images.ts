import { eventPrefix } from '../schema/event-names.js';
import type { ResourceType } from '../schema/model.js';

/** `Post` → `post`, `OrderItem` → `orderItem`: the first part of an event type (schema/event-names.ts). */
export function eventTypeOf(type: ResourceType): string {
  return eventPrefix(type.name);
}
