import type { ResourceType } from '../schema/model.js';

/** `Post` → `post`, `OrderItem` → `orderItem`: the first part of an event type. */
export function eventTypeOf(type: ResourceType): string {
  return type.name.charAt(0).toLowerCase() + type.name.slice(1);
}
