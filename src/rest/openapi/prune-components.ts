import type { OpenApiDocument } from './openapi-types.js';

type Section = 'schemas' | 'parameters' | 'responses' | 'headers';
const SECTIONS: readonly Section[] = ['schemas', 'parameters', 'responses', 'headers'];

/**
 * Drops the components no operation reaches (an enum no field uses, the
 * `targetId` parameter of a schema without many-to-many relations): unused
 * components are noise to a reader and a warning to linters.
 */
export function pruneComponents(document: OpenApiDocument): OpenApiDocument {
  const reached = new Set<string>();
  const pending: unknown[] = [document.paths];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      pending.push(...(value as unknown[]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key === '$ref' && typeof item === 'string' && !reached.has(item)) {
          reached.add(item);
          pending.push(lookup(document, item));
        } else {
          pending.push(item);
        }
      }
    }
  }
  // Security schemes are named by security requirements, not by `$ref`: they are kept as they are.
  const components: OpenApiDocument['components'] = {
    ...document.components,
    ...Object.fromEntries(
      SECTIONS.map((section) => [
        section,
        Object.fromEntries(Object.entries(document.components[section]).filter(([name]) => reached.has(pointer(section, name)))),
      ]),
    ),
  };
  return { ...document, components };
}

function pointer(section: Section, name: string): string {
  return `#/components/${section}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function lookup(document: OpenApiDocument, reference: string): unknown {
  const match = /^#\/components\/(schemas|parameters|responses|headers)\/(.+)$/.exec(reference);
  if (match === null) return undefined;
  const name = (match[2] ?? '').replaceAll('~1', '/').replaceAll('~0', '~');
  return document.components[match[1] as Section][name];
}
