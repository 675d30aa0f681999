/**
 * Deep freezing for the model. `Object.freeze` does not stop `Map#set`, so
 * maps are copied into a map whose mutators throw; everything else is frozen
 * recursively. The model is shared by every request and every layer: a
 * stray write would change the server's behaviour for everyone after it.
 */

export function freezeMap<K, V>(entries: Iterable<readonly [K, V]>): ReadonlyMap<K, V> {
  const map = new Map<K, V>();
  for (const [key, value] of entries) map.set(key, value);
  const refuse = (): never => {
    throw new TypeError('The schema model is frozen.');
  };
  Object.defineProperties(map, {
    set: { value: refuse },
    delete: { value: refuse },
    clear: { value: refuse },
  });
  return Object.freeze(map);
}

/** Freezes plain objects and arrays reachable from `value` (maps are expected frozen by `freezeMap`). */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const [key, entry] of value) {
      deepFreeze(key, seen);
      deepFreeze(entry, seen);
    }
    return value;
  }
  for (const key of Reflect.ownKeys(value)) {
    deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  }
  return Object.freeze(value);
}
