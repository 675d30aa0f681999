import { createHash } from 'node:crypto';
import { type DefinitionNode, type DocumentNode, GraphQLError, Kind, parse, print, Source } from 'graphql';
import type { ProblemList } from './schema-problem.js';

/** One schema file: its name (as reported in problems) and its text. */
export interface SchemaSource {
  readonly file: string;
  readonly text: string;
}

export interface ParsedSources {
  /** Every definition of every file, in file order; each node's `loc.source.name` is its file. */
  readonly definitions: readonly DefinitionNode[];
  /** sha256 (hex) of the printed documents: comments and layout do not change it. */
  readonly hash: string;
}

/**
 * Parses each file on its own, so that every location keeps its own file,
 * then concatenates the definitions into one schema. A file that does not
 * parse is reported (graphql-js stops at the first syntax error of a file)
 * and the others are still parsed, so each broken file shows up in one run.
 */
export function parseSources(sources: readonly SchemaSource[], problems: ProblemList): ParsedSources {
  const definitions: DefinitionNode[] = [];
  const hash = createHash('sha256');
  for (const { file, text } of sources) {
    let document: DocumentNode;
    try {
      document = parse(new Source(text, file));
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      if (isEmptyDocumentError(error, text)) continue;
      const where = error.locations?.[0] ?? { line: 1, column: 1 };
      problems.add({
        file,
        line: where.line,
        column: where.column,
        code: 'SCHEMA_SYNTAX',
        message: error.message.replace(/^Syntax Error: /, ''),
      });
      continue;
    }
    definitions.push(...document.definitions);
    hash.update(print(document)).update('\n');
  }
  return { definitions, hash: hash.digest('hex') };
}

/** graphql-js refuses a document without definitions; an empty file is simply nothing. */
function isEmptyDocumentError(error: GraphQLError, text: string): boolean {
  return /Unexpected <EOF>/.test(error.message) && isBlank(text);
}

function isBlank(text: string): boolean {
  // Only whitespace, commas and comments: what the GraphQL lexer ignores.
  return text.split('\n').every((line) => /^[\s,]*(?:#.*)?$/.test(line));
}

export function isExecutableDefinition(definition: DefinitionNode): boolean {
  return (
    definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION
  );
}
