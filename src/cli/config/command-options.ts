import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { STARTER_SCHEMA_FILE } from '../init-project.js';
import { OPTIONS, type OptionKey } from './options.js';
import { CONFIG_FILE, ConfigFileError, readConfigFile, type ConfigFile } from './read-config-file.js';
import { OptionsError, resolveOptions, type Options } from './resolve-options.js';

/** Options the command line cannot use, every problem listed; the CLI prints them and exits 1. */
export class UnusableOptionsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * The configuration file a command reads: `--config`, else DIGLOT_CONFIG
 * (either must exist), else ./diglot.config.json when it is there.
 */
export function configFileOf(command: Command, env: Readonly<Record<string, string | undefined>>): ConfigFile | undefined {
  const named = command.optsWithGlobals<{ config?: string }>().config ?? (env['DIGLOT_CONFIG'] === '' ? undefined : env['DIGLOT_CONFIG']);
  try {
    return readConfigFile(named ?? CONFIG_FILE, named !== undefined);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new UnusableOptionsError(error.problems);
    throw error;
  }
}

/** A command's options, from its flags, the environment and the configuration file, in that order. */
export function optionsOf<const K extends OptionKey>(command: Command, keys: readonly K[], env: Readonly<Record<string, string | undefined>>): Pick<Options, K> {
  const file = configFileOf(command, env);
  try {
    return resolveOptions(keys, { flags: command.opts(), env, file }).values;
  } catch (error) {
    if (error instanceof OptionsError) throw new UnusableOptionsError(error.problems);
    throw error;
  }
}

/**
 * The schema files: the `schema` option, else ./schema.graphql. When
 * neither is there, the message says everything that was looked at.
 */
export function schemaFilesOf(schema: readonly string[] | undefined): readonly string[] {
  if (schema !== undefined && schema.length > 0) return schema;
  if (existsSync(STARTER_SCHEMA_FILE)) return [STARTER_SCHEMA_FILE];
  const spec = OPTIONS.schema;
  throw new UnusableOptionsError([
    `no schema: looked for ${spec.flag}, ${spec.env.join(', ')}, "schema" in ${CONFIG_FILE}, and ./${STARTER_SCHEMA_FILE}, and found none. ` +
      `Run \`diglot init\` to write a starting schema here, or pass ${spec.flag} <file>.`,
  ]);
}
