import type { SchemaSource } from '../../schema/load-schema.js';
import type { Model } from '../../schema/model.js';
import { CHANGE_CLASSES, sortChanges, type ContractChange } from './contract-change.js';
import { contractSide } from './contract-side.js';
import { graphqlChanges } from './graphql-changes.js';
import { modelChanges } from './model-changes.js';
import { restChanges } from './rest-changes.js';

/** A schema as loaded: its model and the SDL files it came from (for locations). */
export interface ContractSchema {
  readonly model: Model;
  readonly sources: readonly SchemaSource[];
}

/**
 * Every change between two schemas as clients of either style see it, each
 * classed breaking, dangerous or safe and located in the SDL that caused it.
 * All are collected (none stops the others); most severe first.
 */
export async function diffContract(from: ContractSchema, to: ContractSchema): Promise<ContractChange[]> {
  const before = contractSide(from.model, from.sources);
  const after = contractSide(to.model, to.sources);
  const changes = [...(await graphqlChanges(before, after)), ...restChanges(before, after), ...modelChanges(before, after)];
  return sortChanges(dedupe(changes));
}

/** The same message at the same place once (the generated schemas repeat a type's change on every root field that returns it). */
function dedupe(changes: readonly ContractChange[]): ContractChange[] {
  const seen = new Set<string>();
  return changes.filter((change) => {
    const key = `${change.class}|${change.styles.join()}|${change.message}|${formatLocation(change)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function formatLocation(change: ContractChange): string {
  return `${change.location.file}:${change.location.line}:${change.location.column}`;
}

/** One line per change: `file:line:column [styles] message`. */
export function formatChange(change: ContractChange): string {
  return `${formatLocation(change)} [${change.styles.map((style) => (style === 'graphql' ? 'GraphQL' : 'REST')).join(', ')}] ${change.message}`;
}

/** The human report: changes grouped by class, most severe first, with a count per class. */
export function formatContractChanges(changes: readonly ContractChange[]): string {
  if (changes.length === 0) return 'No changes to the API contract.\n';
  const lines: string[] = [];
  for (const kind of CHANGE_CLASSES) {
    const group = changes.filter((change) => change.class === kind);
    if (group.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`${kind.toUpperCase()} (${group.length})`, ...group.map((change) => `  ${formatChange(change)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The machine report (`diglot diff --json`): counts per class and every change. */
export function contractChangesJson(changes: readonly ContractChange[]): object {
  const counts = Object.fromEntries(CHANGE_CLASSES.map((kind) => [kind, changes.filter((change) => change.class === kind).length]));
  return { ...counts, changes: changes.map((change) => ({ class: change.class, styles: change.styles, message: change.message, ...change.location })) };
}
