import { readFileSync } from 'node:fs';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

/** The file `serve`, `start` and the other commands read their options from, when it is there. */
export const CONFIG_FILE = 'diglot.config.json';

/** A configuration file, read: its top-level keys and where each one is written. */
export interface ConfigFile {
  readonly path: string;
  readonly values: Readonly<Record<string, unknown>>;
  /** `file:line:column` of a key (or of a path below it), for messages that point at it. */
  where(path: readonly (string | number)[]): string;
}

/** A configuration file that cannot be used: every problem, each `file:line:column message`. */
export class ConfigFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Reads a configuration file: JSON with comments and trailing commas, as
 * tsconfig.json allows, so `diglot init` can explain every option in place.
 * Returns undefined when the file does not exist and `required` is false.
 */
export function readConfigFile(path: string, required: boolean): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !required) return undefined;
    throw new ConfigFileError([`${path}: ${(error as Error).message}`]);
  }
  return parseConfigText(path, text);
}

export function parseConfigText(path: string, text: string): ConfigFile {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const at = (offset: number): string => {
    const { line, column } = lineAndColumn(text, offset);
    return `${path}:${line}:${column}`;
  };
  if (errors.length > 0) throw new ConfigFileError(errors.map((error) => `${at(error.offset)} ${describeParseError(printParseErrorCode(error.error))}`));
  if (tree === undefined || tree.type !== 'object') {
    throw new ConfigFileError([`${at(tree?.offset ?? 0)} the configuration must be a JSON object ({ "port": 4000, … })`]);
  }
  const values: Record<string, unknown> = {};
  for (const property of tree.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key === undefined || value === undefined) continue;
    values[key.value as string] = valueOf(value);
  }
  return {
    path,
    values: Object.freeze(values),
    where: (location) => {
      const node = findNodeAtLocation(tree, [...location]);
      // A key's own name is the clearest place to point at; a value deeper down, at itself.
      const target = node?.parent?.type === 'property' && location.length === 1 ? node.parent : node;
      return at(target?.offset ?? 0);
    },
  };
}

function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries((node.children ?? []).flatMap((property) => {
        const [key, value] = property.children ?? [];
        return key === undefined || value === undefined ? [] : [[key.value as string, valueOf(value)]];
      }));
    case 'array':
      return (node.children ?? []).map(valueOf);
    default:
      return node.value as unknown;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text.charCodeAt(index) === 0x0a) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** jsonc-parser's codes (`CommaExpected`) as a sentence. */
function describeParseError(code: string): string {
  return `${code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} (the file is JSON; comments and trailing commas are allowed)`;
}
