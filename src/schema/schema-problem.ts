import type { ASTNode } from 'graphql';

/**
 * Problems found in a user's SDL. Loading collects every problem it can find
 * in one run (as graphql-js validation does) and reports each as one line:
 *
 *   schema.graphql:3:11 SCHEMA_UNKNOWN_TYPE Unknown type "Usr". (did you mean User?)
 *
 * Codes are stable: tools and tests match on them, so a code is never reused
 * for another meaning.
 *
 * | Code                          | Meaning                                                                |
 * |-------------------------------|------------------------------------------------------------------------|
 * | SCHEMA_FILE_UNREADABLE        | a schema file could not be read                                        |
 * | SCHEMA_EMPTY                  | no object types at all                                                 |
 * | SCHEMA_SYNTAX                 | the SDL does not parse                                                 |
 * | SCHEMA_UNKNOWN_TYPE           | a type name that is not declared (also `extend type` of nothing)       |
 * | SCHEMA_UNKNOWN_DIRECTIVE      | a directive Diglot does not define                                     |
 * | SCHEMA_MISPLACED_DIRECTIVE    | a directive where it does not apply (`@image` on an Int, on a type…)   |
 * | SCHEMA_DUPLICATE_DIRECTIVE    | the same directive twice in one place                                  |
 * | SCHEMA_CONFLICTING_DIRECTIVES | directives that exclude each other (`@createdAt @updatedAt`)           |
 * | SCHEMA_BAD_DIRECTIVE_ARGUMENT | unknown, missing, repeated or ill-typed directive argument             |
 * | SCHEMA_BAD_DEFAULT            | `@default(value:)` does not fit the field's type                       |
 * | SCHEMA_DUPLICATE_NAME         | two types, fields or enum values with one name                         |
 * | SCHEMA_NAME_COLLISION         | different names that map to one table, column, path or root field      |
 * | SCHEMA_RESERVED_NAME          | Query/Mutation/Subscription, a built-in type name or one the server takes for itself (`Admin…`, `Upload`; a type served at `/files`, `/admin`…) |
 * | SCHEMA_UNSUPPORTED_DEFINITION | interface, union, input, custom scalar, schema or directive definition |
 * | SCHEMA_UNSUPPORTED_TYPE       | a field type Diglot cannot store (a list of lists, CacheScope)         |
 * | SCHEMA_MISSING_ID             | an object type without `id: ID!`                                       |
 * | SCHEMA_BAD_ID                 | `id` with another type, arguments or directives that do not apply      |
 * | SCHEMA_FIELD_ARGUMENTS        | arguments on a field other than `@image` fields' `(size: Int)`         |
 * | SCHEMA_BAD_RELATION_LIST      | a relation list that is not `[Type!]!`                                 |
 * | SCHEMA_AMBIGUOUS_RELATION     | a relation list with several possible inverses                         |
 * | SCHEMA_BAD_RELATION           | `@relation(inverse:)` naming a field that cannot be the inverse        |
 * | SCHEMA_BAD_ACCOUNT            | `@account` on two types, or naming a field that cannot serve           |
 * | RULE_SYNTAX                   | an `@allow` rule that does not parse (says what it expected)           |
 * | RULE_EMPTY                    | an `@allow` rule with nothing in it                                    |
 * | RULE_UNKNOWN_FIELD            | a rule names a field the type does not have                            |
 * | RULE_BAD_PATH                 | a path through or to a list, a file, JSON or a scalar's "member"; `auth` alone |
 * | RULE_FIELD_COMPARISON         | a rule compares two fields of the record (compare with auth or a value)|
 * | RULE_TYPE_MISMATCH            | operands that cannot be compared, a value not in the enum, `<` on enums |
 * | RULE_NO_ROLES                 | `auth.role` with no enum marked `@roles`                               |
 *
 * A RULE_ problem points inside the rule's string, at the offending token.
 */
export type SchemaProblemCode =
  | 'SCHEMA_FILE_UNREADABLE'
  | 'SCHEMA_EMPTY'
  | 'SCHEMA_SYNTAX'
  | 'SCHEMA_UNKNOWN_TYPE'
  | 'SCHEMA_UNKNOWN_DIRECTIVE'
  | 'SCHEMA_MISPLACED_DIRECTIVE'
  | 'SCHEMA_DUPLICATE_DIRECTIVE'
  | 'SCHEMA_CONFLICTING_DIRECTIVES'
  | 'SCHEMA_BAD_DIRECTIVE_ARGUMENT'
  | 'SCHEMA_BAD_DEFAULT'
  | 'SCHEMA_DUPLICATE_NAME'
  | 'SCHEMA_NAME_COLLISION'
  | 'SCHEMA_RESERVED_NAME'
  | 'SCHEMA_UNSUPPORTED_DEFINITION'
  | 'SCHEMA_UNSUPPORTED_TYPE'
  | 'SCHEMA_MISSING_ID'
  | 'SCHEMA_BAD_ID'
  | 'SCHEMA_FIELD_ARGUMENTS'
  | 'SCHEMA_BAD_RELATION_LIST'
  | 'SCHEMA_AMBIGUOUS_RELATION'
  | 'SCHEMA_BAD_RELATION'
  | 'SCHEMA_BAD_ACCOUNT'
  | 'RULE_SYNTAX'
  | 'RULE_EMPTY'
  | 'RULE_UNKNOWN_FIELD'
  | 'RULE_BAD_PATH'
  | 'RULE_FIELD_COMPARISON'
  | 'RULE_TYPE_MISMATCH'
  | 'RULE_NO_ROLES';

export interface SchemaProblem {
  readonly file: string;
  /** 1-based, as editors count. */
  readonly line: number;
  readonly column: number;
  readonly code: SchemaProblemCode;
  readonly message: string;
  /** The name the user probably meant, as it should be written (`User`, `@unique`). */
  readonly suggestion?: string;
}

/** `file:line:column CODE message (did you mean X?)`, one line per problem. */
export function formatProblem(problem: SchemaProblem): string {
  const hint = problem.suggestion === undefined ? '' : ` (did you mean ${problem.suggestion}?)`;
  return `${problem.file}:${problem.line}:${problem.column} ${problem.code} ${problem.message}${hint}`;
}

export function formatProblems(problems: readonly SchemaProblem[]): string {
  return problems.map(formatProblem).join('\n');
}

/** Collects problems while the loader walks the SDL; sorted by position at the end. */
export class ProblemList {
  readonly #problems: SchemaProblem[] = [];
  readonly #fileOrder: ReadonlyMap<string, number>;

  constructor(files: readonly string[]) {
    this.#fileOrder = new Map(files.map((file, index) => [file, index]));
  }

  get size(): number {
    return this.#problems.length;
  }

  add(problem: SchemaProblem): void {
    this.#problems.push(problem);
  }

  /** A problem located at the start of an AST node (nodes are parsed with locations). */
  at(node: ASTNode, code: SchemaProblemCode, message: string, suggestion?: string): void {
    this.add({ ...locate(node), code, message, ...(suggestion === undefined ? {} : { suggestion }) });
  }

  /** Every problem, in file order (as given), then line, then column. */
  sorted(): SchemaProblem[] {
    const order = (file: string): number => this.#fileOrder.get(file) ?? Number.MAX_SAFE_INTEGER;
    return [...this.#problems].sort(
      (a, b) => order(a.file) - order(b.file) || a.line - b.line || a.column - b.column,
    );
  }
}

/** Where a node starts: its source's name is the file it was parsed from. */
export function locate(node: ASTNode): { file: string; line: number; column: number } {
  const loc = node.loc;
  if (loc === undefined) return { file: '<unknown>', line: 1, column: 1 };
  return { file: loc.source.name, line: loc.startToken.line, column: loc.startToken.column };
}
