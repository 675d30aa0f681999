import { loadSchema } from '../../schema/load-schema.js';
import type { AppliedSchema } from '../../storage/migrate/applied-schema.js';
import type { ContractSchema } from './diff-contract.js';

/** A schema change refused because it would break clients of the API the database serves. */
export class BreakingChangeError extends Error {}

export interface ContractGuardOptions {
  /** Apply breaking changes anyway (`--allow-breaking`). */
  readonly allowBreaking: boolean;
  /** Told each dangerous change (and each breaking one let through), one line each. */
  readonly warn: (line: string) => void;
}

/**
 * The check `migrate`, `serve` and `start` run before changing a database:
 * the new schema against the one last applied to it (what its clients have
 * been served). Breaking changes are refused, listed with their places and
 * the flag that lets them through; dangerous ones are warned about.
 */
export function contractGuard(next: ContractSchema, options: ContractGuardOptions): (applied: AppliedSchema) => Promise<void> {
  return async (applied) => {
    const loaded = loadSchema(applied.sources);
    if (!loaded.ok) {
      // A schema this version no longer reads (a directive since changed) cannot be compared: say so rather than refuse forever.
      options.warn(`the schema applied on ${applied.appliedAt} no longer loads (${loaded.problems[0]?.message ?? 'unknown problem'}); API changes are not checked this time`);
      return;
    }
    // Loaded only when the schema changed: GraphQL Inspector and the OpenAPI builder are not start-up's business otherwise.
    const { diffContract, formatChange } = await import('./diff-contract.js');
    const changes = await diffContract({ model: loaded.model, sources: applied.sources }, next);
    const breaking = changes.filter((change) => change.class === 'breaking');
    const dangerous = changes.filter((change) => change.class === 'dangerous');
    if (breaking.length > 0 && !options.allowBreaking) {
      throw new BreakingChangeError(
        [
          `the schema has ${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} for clients of this API (compared with the schema applied on ${applied.appliedAt}, version ${applied.version}):`,
          ...breaking.map((change) => `  ${formatChange(change)}`),
          'Clients that worked before may fail. To apply it anyway, pass --allow-breaking (the client contract; --allow-destructive is separate and allows data loss).',
          '`diglot diff --from <this database> --to <schema files>` lists every change, safe ones too.',
        ].join('\n'),
      );
    }
    for (const change of breaking) options.warn(`breaking change applied (--allow-breaking): ${formatChange(change)}`);
    for (const change of dangerous) options.warn(`dangerous change: ${formatChange(change)}`);
  };
}
