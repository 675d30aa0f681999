/** `app_metadata.role` → `['app_metadata', 'role']`: which claim of a token holds the id or the role. */
export function parseClaimPath(text: string): readonly string[] {
  const path = text.split('.');
  if (path.some((part) => part === '')) throw new Error(`A claim path is names joined by dots, such as app_metadata.role; ${JSON.stringify(text)} is not one`);
  return Object.freeze(path);
}

/** The claim at `path`, or undefined; only own properties of plain objects are followed. */
export function readClaim(claims: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let value: unknown = claims;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
