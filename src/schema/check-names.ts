import type { NameNode } from 'graphql';
import { toCamelCase } from '../util/naming.js';
import { typeNames } from './renamed.js';
import type { TypeDraft } from './drafts.js';
import type { JoinTable } from './model.js';
import { RESERVED_PATHS, RESERVED_ROOT_FIELDS } from './reserved-names.js';
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
    problems.at(node, 'SCHEMA_NAME_COLLISION', `${describe(first.what)} (declared at ${describeAt(first.node)}).`);
  };

  for (const type of types) {
    const what = `type "${type.name}"`;
    // Root fields: the single record is camelCase(name), the collection its plural.
    claim(`field:${toCamelCase(type.name)}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same GraphQL field "${toCamelCase(type.name)}"`);
    claim(`field:${type.plural}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same collection "${type.plural}"`);
    claim(`path:${type.path}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same path "/${type.path}"`);
    claim(`table:${type.table}`, what, type.nameNode, (first) => `Type "${type.name}" and ${first} map to the same table "${type.table}"`);
  }
  // The old names a renamed type keeps answering to must be free as well.
  for (const type of types) {
    if (type.renamedFrom === undefined) continue;
    const { from, node } = type.renamedFrom;
    if (from === type.name) {
      problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `Type "${type.name}" is @renamed from its own name; remove the directive, or name what it was called before.`);
      continue;
    }
    const old = typeNames(from);
    const what = `the old name "${from}" of type "${type.name}"`;
    const at = (key: string, describe: (first: string) => string): void => {
      const first = claimed.get(key);
      if (first === undefined) claimed.set(key, { what, node: type.nameNode });
      else problems.at(node, 'SCHEMA_NAME_COLLISION', `${describe(first.what)} (declared at ${describeAt(first.node)}).`);
    };
    at(`field:${old.one}`, (first) => `Type "${type.name}" is @renamed from "${from}", but ${first} already maps to the GraphQL field "${old.one}"`);
    at(`field:${old.plural}`, (first) => `Type "${type.name}" is @renamed from "${from}", but ${first} already maps to the collection "${old.plural}"`);
    at(`path:${old.path}`, (first) => `Type "${type.name}" is @renamed from "${from}", but ${first} already maps to the path "/${old.path}"`);
    at(`table:${old.table}`, (first) => `Type "${type.name}" is @renamed from "${from}", but ${first} already maps to the table "${old.table}"`);
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

function describeAt(node: NameNode): string {
  const where = locate(node);
  return `${where.file}:${where.line}:${where.column}`;
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

/** A type whose collection or GraphQL root field would be one of the server's own (reserved-names.ts), under its name or the name it is @renamed from. */
export function checkReservedNames(types: readonly TypeDraft[], problems: ProblemList): void {
  for (const type of types) {
    const path = RESERVED_PATHS.get(type.path);
    if (path !== undefined) {
      problems.at(type.nameNode, 'SCHEMA_RESERVED_NAME', `Type "${type.name}" would be served at /${type.path}, which is the server's own (${path}); choose another name.`);
    }
    for (const field of [toCamelCase(type.name), type.plural]) {
      const what = RESERVED_ROOT_FIELDS.get(field);
      if (what !== undefined) {
        problems.at(type.nameNode, 'SCHEMA_RESERVED_NAME', `Type "${type.name}" would have the GraphQL field "${field}", which is the server's own (${what}); choose another name.`);
      }
    }
    if (type.renamedFrom === undefined || type.renamedFrom.from === type.name) continue;
    const old = typeNames(type.renamedFrom.from);
    const oldPath = RESERVED_PATHS.get(old.path);
    if (oldPath !== undefined) {
      problems.at(
        type.renamedFrom.node,
        'SCHEMA_RESERVED_NAME',
        `Type "${type.name}" is @renamed from "${type.renamedFrom.from}", whose path /${old.path} it would keep answering, but that path is the server's own (${oldPath}); remove the directive.`,
      );
    }
  }
}
