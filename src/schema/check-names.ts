import type { NameNode } from 'graphql';
import { toCamelCase } from '../util/naming.js';
import type { TypeDraft } from './drafts.js';
import type { JoinTable } from './model.js';
import { locate, type ProblemList } from './schema-problem.js';

/**
 * Different names that derive the same table, path, GraphQL root field or
 * column (`type Person` / `type People`, `authorId` / `author`) would make
 * two things share one storage slot or one URL. Reported at the later one.
 */
export function checkNameCollisions(types: readonly TypeDraft[], problems: ProblemList): void {
  const claimed = new Map<string, { what: string; node: NameNode }>();
  const claim = (key: string, what: string, node: NameNode, describe: (first: string) => string): void => {
    const first = claimed.get(key);
    if (first === undefined) {
      claimed.set(key, { what, node });
      return;
    }
    const where = locate(first.node);
    problems.at(node, 'SCHEMA_NAME_COLLISION', `${describe(first.what)} (declared at ${where.file}:${where.line}:${where.column}).`);
  };

  for (const type of types) {
    const what = `type "${type.name}"`;
    // Root fields: the single record is camelCase(name), the collection its plural.
    claim(`field:${toCamelCase(type.name)}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same GraphQL field "${toCamelCase(type.name)}"`);
    claim(`field:${type.plural}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same collection "${type.plural}"`);
    claim(`path:${type.path}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same path "/${type.path}"`);
    claim(`table:${type.table}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same table "${type.table}"`);
  }

  for (const type of types) {
    const columns = new Map<string, { name: string; node: NameNode }>();
    for (const field of type.fields) {
      const entry =
        field.kind === 'stored'
          ? { name: field.field.name, column: field.field.column, node: field.nameNode }
          : field.draft.list
            ? undefined
            : { name: field.draft.common.name, column: field.draft.column, node: field.draft.nameNode };
      if (entry === undefined) continue;
      const first = columns.get(entry.column);
      if (first === undefined) {
        columns.set(entry.column, entry);
        continue;
      }
      problems.at(
        entry.node,
        'SCHEMA_NAME_COLLISION',
        `Fields "${type.name}.${entry.name}" and "${type.name}.${first.name}" would both be stored in column "${entry.column}".`,
      );
    }
  }
}

/** A join table (`users_followers`) must not take the name of a type's table. */
export function checkJoinTableCollisions(types: readonly TypeDraft[], joinTables: readonly JoinTable[], problems: ProblemList): void {
  const tables = new Map(types.map((type) => [type.table, type]));
  const seen = new Set<string>();
  for (const joinTable of joinTables) {
    const clash = tables.get(joinTable.name);
    const owner = types.find((type) => type.name === joinTable.sourceType);
    if (owner !== undefined && (clash !== undefined || seen.has(joinTable.name))) {
      problems.at(
        owner.nameNode,
        'SCHEMA_NAME_COLLISION',
        `The join table "${joinTable.name}" has the name of ${clash === undefined ? 'another join table' : `the table of type "${clash.name}"`}.`,
      );
    }
    seen.add(joinTable.name);
  }
}
