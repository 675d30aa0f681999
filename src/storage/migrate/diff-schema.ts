import { randomInt } from 'node:crypto';
import { CLOCK_SHARD_MARK, CLOCK_TABLE, SYSTEM_PREFIX } from './desired-schema.js';
import { quote, sqlText, step } from './migration-step.js';
import { renameSteps } from './rename-steps.js';
import { defaultKey, servesIndex, type IdOrder } from './schema-names.js';
import type {
  ActualColumn,
  ActualIndex,
  ActualSchema,
  ActualTable,
  ColumnChange,
  ColumnSpec,
  IndexSpec,
  MigrationStep,
  SchemaDialect,
  SchemaSpec,
  TableSpec,
} from './schema-spec.js';

/**
 * The ordered steps that take the `actual` schema to the `desired` one:
 * new tables (referenced ones first), then per existing table its stale
 * indexes, its column changes (in place where the dialect can, else one
 * rebuild) and its new indexes, then change clocks for new tables, then the
 * tables the model no longer has. Tables Diglot did not create are ignored.
 */
export function diffSchema(desired: SchemaSpec, found: ActualSchema, dialect: SchemaDialect): MigrationStep[] {
  // Renames first: everything after compares with the database as they leave it.
  const { steps, actual } = renameSteps(desired, found, dialect);
  const desiredNames = new Set(desired.tables.map((table) => table.name));

  const fresh = desired.tables.filter((table) => !actual.tables.has(table.name));
  steps.push(...createTables(fresh, dialect));

  for (const table of desired.tables) {
    const existing = actual.tables.get(table.name);
    if (existing !== undefined) steps.push(...alterTable(table, existing, dialect));
  }

  const unclocked = desired.tables.filter((table) => table.kind !== 'system' && actual.clockTables?.has(table.name) !== true);
  if (unclocked.length > 0) steps.push(startClocks(unclocked.map((table) => table.name)));

  const dropped = [...actual.tables.values()].filter(
    (table) => !desiredNames.has(table.name) && !table.name.startsWith(SYSTEM_PREFIX) && actual.clockTables?.has(table.name) === true,
  );
  steps.push(...dropTables(dropped, dialect));
  return steps;
}


// ---------------------------------------------------------------------------
// New tables

/**
 * Referenced tables first (PostgreSQL checks a REFERENCES target exists).
 * A cycle between new tables is broken by adding those foreign keys after
 * all the tables exist.
 */
function createTables(tables: readonly TableSpec[], dialect: SchemaDialect): MigrationStep[] {
  const pending = new Map(tables.map((table) => [table.name, table]));
  const ordered: TableSpec[] = [];
  const visiting = new Set<string>();
  const visit = (table: TableSpec): void => {
    if (!pending.has(table.name) || visiting.has(table.name)) return;
    visiting.add(table.name);
    for (const column of table.columns) {
      const target = column.references === undefined ? undefined : pending.get(column.references.table);
      if (target !== undefined && target !== table) visit(target);
    }
    pending.delete(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table);

  const steps: MigrationStep[] = [];
  const notYet = new Set(tables.map((table) => table.name));
  const after: string[] = [];
  for (const table of ordered) {
    notYet.delete(table.name);
    const { create, after: later } = dialect.createTable(table, notYet);
    steps.push(step(`create table ${table.name}`, create));
    after.push(...later);
  }
  if (after.length > 0) steps.push(step('add foreign keys between the new tables', after));
  return steps;
}

function startClocks(tables: readonly string[]): MigrationStep {
  // A clock starts at a random value, so that a database recreated from
  // scratch never repeats validators an old cache may still hold.
  const rows = tables.map((name) => `(${sqlText(name)}, ${randomInt(1, 2 ** 40)})`);
  return step(`start change clocks for ${tables.join(', ')}`, [
    `INSERT INTO ${quote(CLOCK_TABLE)} (${quote('table_name')}, ${quote('version')}) VALUES ${rows.join(', ')} ` +
      `ON CONFLICT (${quote('table_name')}) DO NOTHING`,
  ]);
}

// ---------------------------------------------------------------------------
// Dropped tables

/** Referencing tables go first, so no foreign key ever points at a dropped table. */
function dropTables(tables: readonly ActualTable[], dialect: SchemaDialect): MigrationStep[] {
  const names = new Set(tables.map((table) => table.name));
  const ordered = [...tables].sort((a, b) => referencesAmong(b, names) - referencesAmong(a, names) || a.name.localeCompare(b.name));
  return ordered.map((table) =>
    step(`drop table ${table.name}${table.hasRows ? ' (its rows are lost)' : ''}`, [
      dialect.dropTable(table.name),
      `DELETE FROM ${quote(CLOCK_TABLE)} WHERE ${quote('table_name')} = ${sqlText(table.name)} ` +
        `OR substr(${quote('table_name')}, 1, ${table.name.length + 1}) = ${sqlText(table.name + CLOCK_SHARD_MARK)}`,
    ], true),
  );
}

function referencesAmong(table: ActualTable, names: ReadonlySet<string>): number {
  return table.foreignKeys.filter((fk) => names.has(fk.table) && fk.table !== table.name).length;
}

// ---------------------------------------------------------------------------
// Existing tables

interface Judged {
  readonly change: ColumnChange;
  readonly description: string;
  readonly destructive: boolean;
  readonly problem: string | undefined;
}

function alterTable(table: TableSpec, actual: ActualTable, dialect: SchemaDialect): MigrationStep[] {
  const changes = columnChanges(table, actual, dialect);
  const inPlace = changes.map((judged) => dialect.alter(table, judged.change));
  const rebuild = inPlace.some((sql) => sql === undefined);
  const steps: MigrationStep[] = [];

  if (rebuild) {
    // The rebuild recreates every index of the table, so only the columns count.
    steps.push(
      step(
        `rebuild table ${table.name}: ${changes.map((judged) => judged.description).join('; ')}`,
        dialect.rebuild(table, actual),
        changes.some((judged) => judged.destructive),
        joinProblems(changes.map((judged) => judged.problem)),
      ),
    );
    return steps;
  }

  const { stale, missing } = indexChanges(table.indexes, actual.indexes, dialect.idOrder);
  // Where indexes are built concurrently, a non-unique index they replace
  // (`(author_id, id)` by `(author_id, length(id), id)`) goes only once they
  // are built, so lookups by its columns never lose their index meanwhile.
  const concurrent = dialect.buildIndexesConcurrently !== undefined && missing.length > 0;
  const replaced = stale.filter((index) => concurrent && !index.unique && !missing.some((wanted) => wanted.name === index.name));
  for (const index of stale) {
    if (!replaced.includes(index)) steps.push(step(`drop index ${index.name}`, [dialect.dropIndex(index, table.name)]));
  }
  changes.forEach((judged, i) => {
    steps.push(step(judged.description, inPlace[i] ?? [], judged.destructive, judged.problem));
  });
  for (const index of missing) {
    const description = `create ${index.unique ? 'unique ' : ''}index ${index.name}`;
    // On a table that exists (and may be big and busy), an index is built without blocking writes where the dialect can.
    if (dialect.buildIndexesConcurrently !== undefined) steps.push(Object.freeze({ ...step(`${description} (concurrently)`, []), concurrentIndex: index }));
    else steps.push(step(description, [dialect.createIndex(index)]));
  }
  for (const index of replaced) steps.push(Object.freeze({ ...step(`drop index ${index.name} (concurrently, once its replacement is built)`, []), concurrentDrop: index }));
  return steps;
}

function joinProblems(problems: readonly (string | undefined)[]): string | undefined {
  const present = problems.filter((problem): problem is string => problem !== undefined);
  return present.length === 0 ? undefined : present.join('; ');
}

function columnChanges(table: TableSpec, actual: ActualTable, dialect: SchemaDialect): Judged[] {
  const judged: Judged[] = [];
  const existing = new Map(actual.columns.map((column) => [column.name, column]));
  const where = (column: { readonly name: string }): string => `${table.name}.${column.name}`;

  for (const column of table.columns) {
    const from = existing.get(column.name);
    if (from === undefined) {
      judged.push({ change: { kind: 'add', column }, description: `add column ${where(column)}`, destructive: false, problem: addProblem(table, column, actual) });
      continue;
    }
    const type = dialect.columnType(column.type);
    if (type !== from.type) {
      const widening = isWidening(from.type, column, dialect);
      judged.push({
        change: { kind: 'type', column, from },
        description: `change type of ${where(column)} from ${from.type} to ${type}${widening ? '' : ' (values that do not convert are lost or fail)'}`,
        destructive: !widening,
        problem: undefined,
      });
    }
    if (column.nullable !== from.nullable) {
      judged.push({
        change: { kind: 'nullable', column, from },
        description: column.nullable
          ? `make ${where(column)} optional`
          : `make ${where(column)} required (${column.default === undefined ? 'fails if a row has no value' : 'rows without a value get the default'})`,
        destructive: !column.nullable,
        problem: undefined,
      });
    }
    // Serial columns take their default from a sequence the database owns.
    if (column.type !== 'Serial' && defaultKey(column.default, column.type) !== dialect.defaultKey(from.defaultRaw, column.type)) {
      judged.push({ change: { kind: 'default', column, from }, description: `change the default of ${where(column)}`, destructive: false, problem: undefined });
    }
    const check = checkChange(column, from, dialect);
    if (check !== undefined) judged.push({ change: { kind: 'check', column, from }, description: `${check.description} ${where(column)}`, destructive: check.destructive, problem: undefined });
    const fk = foreignKeyChange(column, actual);
    if (fk !== undefined) judged.push({ ...fk, description: `${fk.description} ${where(column)}`, problem: undefined });
  }

  const wanted = new Set(table.columns.map((column) => column.name));
  for (const column of actual.columns) {
    if (wanted.has(column.name)) continue;
    judged.push({
      change: { kind: 'drop', column },
      description: `drop column ${where(column)}${actual.hasRows ? ' (its values are lost)' : ''}`,
      destructive: true,
      problem: undefined,
    });
  }
  return judged;
}

/** A required column without a default cannot be added to a table that has rows: no value to give them. */
function addProblem(table: TableSpec, column: ColumnSpec, actual: ActualTable): string | undefined {
  if (column.nullable || column.default !== undefined || !actual.hasRows) return undefined;
  const what = column.field === undefined ? `${table.name}.${column.name}` : `${table.type ?? table.name}.${column.field}`;
  return column.references === undefined
    ? `${what} is required and has no default, but ${table.name} has rows: give it @default(value: …) or make it nullable`
    : `${what} is a required relation, but ${table.name} has rows: make it optional, fill it in, then make it required`;
}

/** Conversions that keep every value: integer → floating point or bigint. */
function isWidening(fromType: string, column: ColumnSpec, dialect: SchemaDialect): boolean {
  const int = dialect.columnType('Int');
  return fromType === int && (column.type === 'Float' || column.type === 'BigInt') && dialect.columnType(column.type) !== int;
}

function checkChange(column: ColumnSpec, from: ActualColumn, dialect: SchemaDialect): { description: string; destructive: boolean } | undefined {
  const wanted = dialect.checkValues(column);
  const have = from.check?.values;
  if (wanted === undefined && have === undefined) return undefined;
  if (wanted === undefined) return { description: 'remove the allowed-values check of', destructive: false };
  if (have === undefined) return { description: 'add an allowed-values check to', destructive: true };
  const wantedSet = new Set(wanted);
  const haveSet = new Set(have);
  const removed = [...haveSet].filter((value) => !wantedSet.has(value));
  const added = [...wantedSet].filter((value) => !haveSet.has(value));
  if (removed.length === 0 && added.length === 0) return undefined;
  if (removed.length > 0) return { description: `drop allowed values ${removed.join(', ')} (rows holding them fail) of`, destructive: true };
  return { description: `allow values ${added.join(', ')} in`, destructive: false };
}

function foreignKeyChange(column: ColumnSpec, actual: ActualTable): { change: ColumnChange; description: string; destructive: boolean } | undefined {
  const from = actual.foreignKeys.find((fk) => fk.column === column.name);
  const wanted = column.references;
  if (wanted === undefined && from === undefined) return undefined;
  if (wanted === undefined) return { change: { kind: 'foreignKey', column, from }, description: 'drop the foreign key of', destructive: false };
  if (from === undefined) return { change: { kind: 'foreignKey', column, from }, description: `add a foreign key to ${wanted.table} on`, destructive: true };
  if (from.table !== wanted.table || from.refColumn !== wanted.column) {
    return { change: { kind: 'foreignKey', column, from }, description: `point the foreign key at ${wanted.table} (rows without a match fail) on`, destructive: true };
  }
  if (from.onDelete.toLowerCase() !== wanted.onDelete) {
    return { change: { kind: 'foreignKey', column, from }, description: `make deletes ${wanted.onDelete === 'restrict' ? 'be refused while rows refer to them' : wanted.onDelete === 'cascade' ? 'cascade' : 'set null'} on`, destructive: false };
  }
  return undefined;
}

function indexChanges(desired: readonly IndexSpec[], actual: readonly ActualIndex[], idOrder: IdOrder): { stale: ActualIndex[]; missing: IndexSpec[] } {
  const byName = new Map(actual.map((index) => [index.name, index]));
  const wanted = new Map(desired.map((index) => [index.name, index]));
  const stale = actual.filter((index) => {
    const want = wanted.get(index.name);
    return want === undefined || !servesIndex(want, index, idOrder);
  });
  const missing = desired.filter((index) => {
    const have = byName.get(index.name);
    return have === undefined || !servesIndex(index, have, idOrder);
  });
  return { stale, missing };
}
