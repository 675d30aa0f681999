import type { SourceLocation } from '../../schema/model.js';

/** What a change does to clients that worked before it: `breaking` fails some of them, `dangerous` may change what they get. */
export type ChangeClass = 'breaking' | 'dangerous' | 'safe';

/** The API style a change is seen through. */
export type ApiStyle = 'graphql' | 'rest';

export interface ContractChange {
  readonly class: ChangeClass;
  readonly styles: readonly ApiStyle[];
  readonly message: string;
  /** The SDL that caused it: the new schema's for additions and changes, the old one's for removals. */
  readonly location: SourceLocation;
}

export const CHANGE_CLASSES: readonly ChangeClass[] = ['breaking', 'dangerous', 'safe'];

const RANK: Readonly<Record<ChangeClass, number>> = { safe: 0, dangerous: 1, breaking: 2 };

/** The more severe of two classes. */
export function worse(a: ChangeClass, b: ChangeClass): ChangeClass {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Most severe first, then by file, line and column, so a report reads top-down. */
export function sortChanges(changes: readonly ContractChange[]): ContractChange[] {
  const key = (change: ContractChange): string => `${change.location.file}\u0000${String(change.location.line).padStart(8, '0')}${String(change.location.column).padStart(6, '0')}`;
  return [...changes].sort((a, b) => RANK[b.class] - RANK[a.class] || key(a).localeCompare(key(b)) || a.message.localeCompare(b.message));
}
