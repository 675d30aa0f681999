import type { OptionKind } from './option-kinds.js';

/**
 * One option of the command line, reachable three ways with one precedence:
 * a flag, else an environment variable, else a key of the configuration
 * file, else its default.
 */
export interface OptionSpec<T> {
  /** The configuration file's key, and the name the code reads it by. */
  readonly key: string;
  /** `--query-timeout` (the placeholder comes from the kind). */
  readonly flag: string;
  readonly short?: string;
  /** The environment variables, first match wins (the first is Diglot's own name; others are conventions such as PORT). */
  readonly env: readonly string[];
  readonly kind: OptionKind<T>;
  readonly default: T | undefined;
  /** One sentence for `--help`, docs/configuration.md's table and the configuration template. */
  readonly description: string;
  /** A credential: never printed as a default, and the template suggests the environment for it. */
  readonly secret?: boolean;
  /** A file or folder: written in the configuration file, it is relative to that file's folder. */
  readonly path?: boolean;
}

/** The values of a table of options, by key: an option without a default may be undefined. */
export type OptionValues<Table> = {
  readonly [Key in keyof Table]: Table[Key] extends { readonly kind: OptionKind<infer T>; readonly default: infer D } ? (undefined extends D ? T | undefined : T) : never;
};
