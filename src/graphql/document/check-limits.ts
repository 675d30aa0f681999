import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { GraphqlLimits } from '../graphql-options.js';

/**
 * Hostile-document limits, checked on the syntax tree before graphql-js
 * validation runs (some of its rules are quadratic in the number of fields,
 * so a hostile document must be refused before it gets there).
 *
 * Fragments are expanded as execution would expand them, with each
 * fragment's figures computed once, so a document cannot hide an
 * alias-heavy selection behind fragments, nor make this check slow with a
 * fragment that spreads another twice, and so on. Cycles are left to
 * graphql-js (NoFragmentCyclesRule): here a cycle counts as nothing.
 *
 * Depth, breadth and cost of data are the plan's to check (plan/limits.ts),
 * the same for both styles. Introspection nests `ofType` deeply but cheaply;
 * what makes it explode is re-entering a list of the schema below itself
 * (`types { fields { type { fields { … } } } }`), so each of those lists may
 * appear once on a path.
 */
export function checkLimits(document: DocumentNode, limits: GraphqlLimits): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const counter = new Counter(fragments);
  const errors: GraphQLError[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const name = definition.name === undefined ? 'The operation' : `Operation ${definition.name.value}`;
    const tally = counter.tally(definition.selectionSet);
    const directives = tally.directives + (definition.directives?.length ?? 0);
    const roots = counter.rootFields(definition.selectionSet, new Set());
    const over = (value: number, limit: keyof GraphqlLimits, what: string): void => {
      if (value > limits[limit]) {
        const shown = value > 1e9 ? 'more than a billion' : String(value);
        errors.push(tooComplex(`${name} ${what.replace('#', shown)}; the limit is ${limits[limit]} (${limit}).`, limit));
      }
    };
    over(tally.aliases, 'maxAliases', 'uses # aliases');
    over(roots, 'maxRootFields', 'has # root fields');
    over(directives, 'maxDirectives', 'uses # directives');
    const repeated = counter.introspectionRepeat(definition.selectionSet);
    if (repeated !== undefined) {
      errors.push(tooComplex(`${name} nests the introspection list "${repeated}" inside itself; each schema list may appear once on a path.`, 'introspection'));
    }
  }
  return errors;
}

export function tooComplex(message: string, limit: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX', limit } });
}

interface Tally {
  readonly aliases: number;
  readonly directives: number;
}

const NOTHING: Tally = { aliases: 0, directives: 0 };
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);
/** Introspection fields returning lists of schema elements. */
const INTROSPECTION_LISTS = new Set(['types', 'fields', 'inputFields', 'interfaces', 'possibleTypes', 'enumValues', 'args', 'directives']);

class Counter {
  private readonly tallies = new Map<string, Tally>();
  private readonly visiting = new Set<string>();

  constructor(private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>) {}

  tally(set: SelectionSetNode): Tally {
    let aliases = 0;
    let directives = 0;
    for (const selection of set.selections) {
      directives += selection.directives?.length ?? 0;
      let inner: Tally = NOTHING;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias !== undefined) aliases += 1;
        if (selection.selectionSet !== undefined) inner = this.tally(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = this.tally(selection.selectionSet);
      } else {
        inner = this.fragmentTally(selection.name.value);
      }
      aliases += inner.aliases;
      directives += inner.directives;
    }
    return { aliases, directives };
  }

  private fragmentTally(name: string): Tally {
    const known = this.tallies.get(name);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    if (fragment === undefined || this.visiting.has(name)) return NOTHING;
    this.visiting.add(name);
    const tally = this.tally(fragment.selectionSet);
    this.visiting.delete(name);
    const withOwn = { ...tally, directives: tally.directives + (fragment.directives?.length ?? 0) };
    this.tallies.set(name, withOwn);
    return withOwn;
  }

  rootFields(set: SelectionSetNode, seen: Set<string>): number {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) count += 1;
      else if (selection.kind === Kind.INLINE_FRAGMENT) count += this.rootFields(selection.selectionSet, seen);
      else {
        const fragment = this.fragments.get(selection.name.value);
        if (fragment === undefined || seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        count += this.rootFields(fragment.selectionSet, seen);
      }
    }
    return count;
  }

  /** The first introspection list found inside itself, if any. */
  introspectionRepeat(set: SelectionSetNode): string | undefined {
    const memo = new Map<string, string | null>();
    const walk = (selections: SelectionSetNode, path: readonly string[], inside: boolean): string | undefined => {
      for (const selection of selections.selections) {
        let found: string | undefined;
        if (selection.kind === Kind.FIELD) {
          if (selection.selectionSet === undefined) continue;
          const name = selection.name.value;
          const enters = inside || INTROSPECTION_ROOTS.has(name);
          if (!enters) continue;
          if (INTROSPECTION_LISTS.has(name)) {
            if (path.includes(name)) return name;
            found = walk(selection.selectionSet, [...path, name].sort(), true);
          } else {
            found = walk(selection.selectionSet, path, true);
          }
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          found = walk(selection.selectionSet, path, inside);
        } else {
          const fragment = this.fragments.get(selection.name.value);
          if (fragment === undefined) continue;
          const key = `${fragment.name.value}|${String(inside)}|${path.join(',')}`;
          const known = memo.get(key);
          if (known !== undefined) {
            found = known ?? undefined;
          } else {
            // Marked before the walk: a cycle meets its own entry and stops.
            memo.set(key, null);
            found = walk(fragment.selectionSet, path, inside);
            memo.set(key, found ?? null);
          }
        }
        if (found !== undefined) return found;
      }
      return undefined;
    };
    return walk(set, [], false);
  }
}
