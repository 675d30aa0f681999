import { suggest } from '../util/suggest.js';
import { readFile } from 'node:fs/promises';
import { buildTypeDraft } from './build-type.js';
import { checkJoinTableCollisions, checkNameCollisions, checkReservedNames } from './check-names.js';
import { checkRules, type CheckedRules } from './check-rules.js';
import { collectDefinitions } from './collect-definitions.js';
import type { TypeDraft } from './drafts.js';
import { deepFreeze, freezeMap } from './freeze-model.js';
import type { EnumType, Field, Model, ResourceType } from './model.js';
import { pairRelations, type PairedRelations } from './pair-relations.js';
import { parseSources, type SchemaSource } from './parse-sources.js';
import { readAccount } from './read-account.js';
import { readRoles } from './read-roles.js';
import { ProblemList, type SchemaProblem } from './schema-problem.js';

export type { SchemaSource } from './parse-sources.js';
export { formatProblem, formatProblems, type SchemaProblem, type SchemaProblemCode } from './schema-problem.js';

export type LoadSchemaResult =
  | { readonly ok: true; readonly model: Model }
  | { readonly ok: false; readonly problems: readonly SchemaProblem[] };

/**
 * SDL files → the frozen model, or every problem found (as many as one run
 * can find: later stages still run on what earlier stages could make sense
 * of, and never report a consequence of a problem already reported).
 *
 * Several files form one schema, in the order given; a type may be declared
 * in one and extended (`extend type`) in another. Problems are located in
 * the file they come from and sorted by file, line and column.
 */
export function loadSchema(sources: readonly SchemaSource[]): LoadSchemaResult {
  const problems = new ProblemList(sources.map((source) => source.file));
  const parsed = parseSources(sources, problems);
  // A file that does not parse hides its types, so every reference to them
  // would be reported again as unknown: stop at syntax errors.
  if (problems.size > 0) return { ok: false, problems: problems.sorted() };

  const declarations = collectDefinitions(parsed.definitions, problems);
  if (declarations.objects.size === 0) {
    problems.add({
      file: sources[0]?.file ?? '<no schema file>',
      line: 1,
      column: 1,
      code: 'SCHEMA_EMPTY',
      message: 'The schema declares no object types; declare at least one, such as "type User { id: ID! }".',
    });
  }

  const roles = readRoles(declarations, problems);
  let order = 0;
  const nextOrder = (): number => order++;
  const drafts = [...declarations.objects.values()].map((declaration) =>
    buildTypeDraft(declaration, declarations, problems, nextOrder, roles),
  );
  checkNameCollisions(drafts, problems);
  checkReservedNames(drafts, problems);
  const relations = pairRelations(drafts, problems);
  checkJoinTableCollisions(drafts, relations.joinTables, problems);
  for (const draft of drafts) checkTypeIndexes(draft, relations, problems);
  const rules = checkRules(drafts, relations, declarations, roles, problems);
  const account = readAccount(drafts, roles, problems);

  if (problems.size > 0) return { ok: false, problems: problems.sorted() };

  const enums: [string, EnumType][] = [...declarations.enums.values()].map((declaration) => [
    declaration.name,
    {
      name: declaration.name,
      values: declaration.values.map((value) => value.name.value),
      description: declaration.node.description?.value,
      deprecatedValues: freezeMap([...declaration.deprecatedValues]),
    },
  ]);
  const types = drafts.map((draft) => finishType(draft, relations, rules));
  const model: Model = {
    types,
    typesByName: freezeMap(types.map((type) => [type.name, type])),
    enums: freezeMap(enums),
    joinTables: relations.joinTables,
    hash: parsed.hash,
    roles: roles.set,
    hasRules: rules.any,
    account,
  };
  return { ok: true, model: deepFreeze(model) };
}

/** Reads the files (UTF-8) and loads them; an unreadable file is one more problem. */
export async function loadSchemaFiles(paths: readonly string[]): Promise<LoadSchemaResult> {
  const sources: SchemaSource[] = [];
  const unreadable: SchemaProblem[] = [];
  for (const path of paths) {
    try {
      sources.push({ file: path, text: await readFile(path, 'utf8') });
    } catch (error) {
      const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      unreadable.push({ file: path, line: 1, column: 1, code: 'SCHEMA_FILE_UNREADABLE', message: `Cannot read the schema file (${reason}).` });
    }
  }
  if (unreadable.length > 0) return { ok: false, problems: unreadable };
  return loadSchema(sources);
}

function finishType(draft: TypeDraft, relations: PairedRelations, rules: CheckedRules): ResourceType {
  const fields: Field[] = draft.fields.map((fieldDraft) => {
    let field: Field;
    if (fieldDraft.kind === 'stored') {
      field = fieldDraft.field;
    } else {
      const relation = relations.fields.get(fieldDraft.draft);
      // pairRelations builds a field for every draft it is given.
      if (relation === undefined) throw new Error(`Relation ${draft.name}.${fieldDraft.draft.common.name} was not paired.`);
      field = relation;
    }
    const fieldRules = rules.fields.get(`${draft.name}.${field.name}`);
    return fieldRules === undefined ? field : { ...field, rules: fieldRules };
  });
  return {
    name: draft.name,
    description: draft.description,
    plural: draft.plural,
    path: draft.path,
    table: draft.table,
    fields,
    fieldsByName: freezeMap(fields.map((field) => [field.name, field])),
    aliases: freezeMap(fields.flatMap((field) => (field.renamedFrom === undefined ? [] : [[field.renamedFrom, field] as const]))),
    renamedFrom: draft.renamedFrom?.from,
    cache: draft.cache,
    deprecated: draft.deprecated,
    deprecatedDates: draft.deprecatedDates,
    location: draft.location,
    indexes: draft.indexes.map((index) => index.fields),
    rules: rules.types.get(draft.name) ?? {},
  };
}

/** Each name in a type's `@index(fields:)` must be a field stored in a column of its own, named once. */
function checkTypeIndexes(draft: TypeDraft, relations: PairedRelations, problems: ProblemList): void {
  const fields = new Map(draft.fields.map((field) => [field.kind === 'stored' ? field.field.name : field.draft.common.name, field]));
  for (const index of draft.indexes) {
    const seen = new Set<string>();
    for (const name of index.fields) {
      const draftField = fields.get(name);
      if (draftField === undefined) {
        problems.at(index.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@index names "${name}", which is not a field of ${draft.name}.`, suggest(name, [...fields.keys()]));
        continue;
      }
      if (seen.has(name)) problems.at(index.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@index names "${name}" twice.`);
      seen.add(name);
      const field = draftField.kind === 'stored' ? draftField.field : relations.fields.get(draftField.draft);
      const column = field !== undefined && (field.kind === 'toOne' || (field.kind === 'scalar' && !field.list && field.scalar !== 'JSON'));
      if (!column) {
        problems.at(
          index.node,
          'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
          `@index cannot cover "${draft.name}.${name}": only single-value fields and to-one relations are stored in a column that can be indexed.`,
        );
      }
    }
  }
}
