import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { suggest } from '../../util/suggest.js';
import { OptionValueError } from './option-kinds.js';
import type { OptionValues } from './option-spec.js';
import { OPTIONS, type OptionKey } from './options.js';
import type { ConfigFile } from './read-config-file.js';

export type OptionSource = 'flag' | 'env' | 'file' | 'default';

export type Options = OptionValues<typeof OPTIONS>;

/** Options that cannot be used: every problem found, one line each, pointing at where it was written. */
export class OptionsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Keys of the configuration file that are not single options but sections
 * read by their own feature (webhook endpoints, rate-limit policies); each
 * section's owner validates it.
 */
export const CONFIG_SECTIONS: readonly string[] = ['$schema'];

/** The flags of `keys` on a command; their values are read and checked by resolveOptions, with the environment and the file. */
export function addOptions(command: Command, keys: readonly OptionKey[]): Command {
  for (const key of keys) {
    const spec = OPTIONS[key];
    const placeholder = spec.kind.placeholder === undefined ? '' : ` ${key === 'schema' ? '<files...>' : spec.kind.placeholder}`;
    const flags = `${'short' in spec ? `${spec.short}, ` : ''}${spec.flag}${placeholder}`;
    const shown = spec.default === undefined || ('secret' in spec && spec.secret) ? '' : `; default ${JSON.stringify(spec.kind.toJson(spec.default as never))}`;
    command.addOption(new Option(flags, `${spec.description} (env ${spec.env.join(' or ')}${shown})`));
  }
  return command;
}

/**
 * Each option's value by one precedence: a flag, else the environment, else
 * the configuration file, else the default. Every value is checked by its
 * option's kind, and every key of the file must be an option or a section:
 * all problems are reported at once.
 */
export function resolveOptions<const K extends OptionKey>(
  keys: readonly K[],
  input: {
    /** Commander's raw values: a string, the strings of a repeated flag, or true for a bare switch. */
    readonly flags: Readonly<Record<string, string | readonly string[] | boolean | undefined>>;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly file: ConfigFile | undefined;
  },
): { readonly values: Pick<Options, K>; readonly sources: Readonly<Record<K, OptionSource>> } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  const sources: Record<string, OptionSource> = {};
  const { file } = input;
  if (file !== undefined) {
    const known = [...Object.keys(OPTIONS), ...CONFIG_SECTIONS];
    for (const key of Object.keys(file.values)) {
      if (known.includes(key)) continue;
      const guess = suggest(key, known);
      problems.push(`${file.where([key])} unknown option "${key}"${guess === undefined ? '' : `; did you mean "${guess}"?`}`);
    }
  }
  for (const key of keys) {
    const spec = OPTIONS[key];
    const kind = spec.kind as { fromText(text: string): unknown; fromJson(value: unknown): unknown };
    const read = (where: string, parse: () => unknown, source: OptionSource): void => {
      try {
        values[key] = parse();
        sources[key] = source;
      } catch (error) {
        if (!(error instanceof OptionValueError)) throw error;
        problems.push(`${where}: ${error.message}`);
      }
    };
    const fromFlag = input.flags[key];
    const envName = spec.env.find((name) => input.env[name] !== undefined && input.env[name] !== '');
    if (fromFlag !== undefined) {
      read(spec.flag, () => (fromFlag === true ? true : kind.fromText(typeof fromFlag === 'string' ? fromFlag : Array.isArray(fromFlag) ? fromFlag.join(',') : String(fromFlag))), 'flag');
    } else if (envName !== undefined) {
      read(envName, () => kind.fromText(input.env[envName] ?? ''), 'env');
    } else if (file !== undefined && file.values[key] !== undefined) {
      const relative = 'path' in spec && spec.path;
      read(`${file.where([key])} ${key}`, () => (relative ? besideFile(file.path, kind.fromJson(file.values[key])) : kind.fromJson(file.values[key])), 'file');
    } else {
      values[key] = spec.default;
      sources[key] = 'default';
    }
  }
  if (problems.length > 0) throw new OptionsError(problems);
  return { values: Object.freeze(values) as Pick<Options, K>, sources: Object.freeze(sources) };
}

/** A path written in the configuration file, relative to the file's folder (as tsconfig.json's are); URLs are kept. */
function besideFile(file: string, value: unknown): unknown {
  const place = (path: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : resolve(dirname(file), path));
  if (typeof value === 'string') return place(value);
  return Array.isArray(value) ? Object.freeze(value.map((item) => place(String(item)))) : value;
}
