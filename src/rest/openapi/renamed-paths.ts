import type { Field, ResourceType } from '../../schema/model.js';
import { renamedReason, typeAlias } from '../../schema/renamed.js';
import { HTTP_METHODS, type Operation, type PathItem } from './openapi-types.js';

/**
 * The old paths `@renamed(from:)` keeps answering (rest-api.ts,
 * file-routes.ts): a renamed type's old collection and everything under
 * it, and the old sub-paths of a renamed list relation or file field. Each
 * is the current path's item under the old path, every operation marked
 * deprecated and keeping the operationId the document gave it before the
 * rename, so a generated client keeps calling it and `diglot diff` sees
 * the route kept, not removed.
 *
 * `build` makes a type's path items; it is called again for the type as it
 * was named before (its old name, its routed fields by their old names),
 * which gives the same items in the same order under the old paths.
 */
export function renamedPaths(type: ResourceType, current: Readonly<Record<string, PathItem>>, build: (named: ResourceType) => Record<string, PathItem>): Record<string, PathItem> {
  const before = namedAsBefore(type);
  if (before === undefined) return {};
  const oldItems = Object.entries(build(before));
  const currentPaths = Object.keys(current);
  if (oldItems.length !== currentPaths.length) throw new Error(`the old paths of ${type.name} do not match its current ones`);
  const paths: Record<string, PathItem> = {};
  oldItems.forEach(([oldPath, oldItem], i) => {
    const path = currentPaths[i] as string;
    if (oldPath === path) return;
    paths[oldPath] = oldPathItem(current[path] as PathItem, oldItem, path, renamedNote(type, before));
  });
  return paths;
}

/** The fields whose names are in a path: list relations (sub-collections) and file fields (uploads). */
function isRouted(field: Field): boolean {
  return field.kind === 'toMany' || field.kind === 'manyToMany' || field.kind === 'file';
}

/** The type under the names it had before `@renamed`, or undefined when none of its paths changed. */
function namedAsBefore(type: ResourceType): ResourceType | undefined {
  const renamedFields = type.fields.some((field) => isRouted(field) && field.renamedFrom !== undefined);
  const alias = typeAlias(type);
  if (alias === undefined && !renamedFields) return undefined;
  const fields = type.fields.map((field) => (isRouted(field) && field.renamedFrom !== undefined ? { ...field, name: field.renamedFrom } : field));
  return { ...(alias ?? type), fields };
}

/** Why the old path is deprecated: the renames its path goes through. */
function renamedNote(type: ResourceType, before: ResourceType): string {
  const renamed = [
    ...(type.renamedFrom === undefined ? [] : [`${type.renamedFrom}: ${renamedReason(type.name)}`]),
    ...type.fields.flatMap((field, i) => (before.fields[i]?.name === field.name ? [] : [`${type.name}.${field.renamedFrom ?? ''}: ${renamedReason(field.name)}`])),
  ];
  return `Deprecated: an old path kept by \`@renamed\` (${renamed.join('; ')}).`;
}

/** The current item's operations under an old path: deprecated, with their old operationIds and a note on where they moved. */
function oldPathItem(item: PathItem, oldItem: PathItem, path: string, note: string): PathItem {
  const copy: PathItem = { ...item };
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    const operationId = oldItem[method]?.operationId;
    if (operation === undefined || operationId === undefined) continue;
    copy[method] = {
      ...operation,
      operationId,
      description: `${note} It answers as \`${method.toUpperCase()} ${path}\` does, with \`Deprecation\` and \`Link\` headers.\n\n${operation.description}`,
      deprecated: true,
    } satisfies Operation;
  }
  return copy;
}
