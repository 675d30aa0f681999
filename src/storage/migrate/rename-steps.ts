import { CLOCK_SHARD_MARK, CLOCK_TABLE } from './desired-schema.js';
import { quote, sqlText, step } from './migration-step.js';
import { constraintName, servesIndex } from './schema-names.js';
import type { ActualColumn, ActualIndex, ActualSchema, ActualTable, MigrationStep, SchemaDialect, SchemaSpec, TableSpec } from './schema-spec.js';

/**
 * The renames `@renamed(from:)` asks for — tables (a type's, a join table
 * named after it), then columns, then the index and constraint names that
 * derive from them — and the schema as the database will have it once they
 * ran, for `diffSchema` to compare the rest against. A rename keeps every
 * row, so none of these steps is destructive.
 *
 * Idempotent by construction: a rename is only planned while the old name
 * exists and the new one does not. Once it ran (or on a database made with
 * the new name) nothing is left to do; a database holding both is a
 * conflict the operator resolves, never one this guesses at.
 */
export function renameSteps(desired: SchemaSpec, found: ActualSchema, dialect: SchemaDialect): { steps: MigrationStep[]; actual: ActualSchema } {
  const steps: MigrationStep[] = [];
  const tables = new Map(found.tables);
  const clocks = found.clockTables === undefined ? undefined : new Set(found.clockTables);
  const renamedTables = new Map<string, string>();

  for (const table of desired.tables) {
    const from = table.renamedFrom;
    const old = from === undefined ? undefined : tables.get(from);
    if (from === undefined || old === undefined) continue;
    const description = `rename table ${from} to ${table.name} (its rows are kept)`;
    if (tables.has(table.name)) {
      steps.push(step(description, [], false, `${subject(table)} is @renamed from a name whose table ${from} the database still has, but it also has ${table.name}: ${bothHint(from, table.name)}`));
      continue;
    }
    steps.push(step(description, [...dialect.renameTable(from, table.name), ...renameClock(from, table.name)]));
    tables.delete(from);
    tables.set(table.name, { ...old, name: table.name });
    if (clocks?.delete(from) === true) clocks.add(table.name);
    renamedTables.set(from, table.name);
  }
  // Foreign keys follow a renamed table (the database rewrites them).
  if (renamedTables.size > 0) {
    for (const [name, table] of tables) {
      tables.set(name, { ...table, foreignKeys: table.foreignKeys.map((fk) => ({ ...fk, table: renamedTables.get(fk.table) ?? fk.table })) });
    }
  }

  for (const table of desired.tables) {
    const current = tables.get(table.name);
    if (current === undefined) continue;
    const renamedColumns = new Map<string, string>();
    for (const column of table.columns) {
      const from = column.renamedFrom;
      if (from === undefined || !current.columns.some((have) => have.name === from)) continue;
      const description = `rename column ${table.name}.${from} to ${column.name} (its values are kept)`;
      if (current.columns.some((have) => have.name === column.name)) {
        const what = `${table.type ?? table.name}.${column.field ?? column.name}`;
        steps.push(step(description, [], false, `${what} is @renamed from a name whose column ${table.name}.${from} the database still has, but it also has ${table.name}.${column.name}: ${bothHint(`${table.name}.${from}`, `${table.name}.${column.name}`)}`));
        continue;
      }
      steps.push(step(description, dialect.renameColumn(table.name, from, column.name)));
      renamedColumns.set(from, column.name);
    }
    if (renamedColumns.size === 0 && (table.renamedFrom === undefined || !renamedTables.has(table.renamedFrom))) continue;
    const moved = withColumnsRenamed(current, renamedColumns);
    const names = renameDerivedNames(table, moved, dialect);
    if (names.sql.length > 0) steps.push(step(`rename the indexes and constraints of ${table.name} after its new names`, names.sql));
    tables.set(table.name, names.table);
  }
  return { steps, actual: { tables, clockTables: clocks } };
}

function subject(table: TableSpec): string {
  return table.type === undefined ? `The join table ${table.name}` : `Type ${table.type}`;
}

function bothHint(from: string, to: string): string {
  return `keep the one whose data is current (drop or rename the other yourself), or remove @renamed if ${to} is the one to keep; ${from} is never dropped or merged for you`;
}

/** Change clocks move with their table (and its shards, `<table>#<n>`), so validators stay valid across the rename. */
function renameClock(from: string, to: string): string[] {
  const column = quote('table_name');
  return [
    `UPDATE ${quote(CLOCK_TABLE)} SET ${column} = ${sqlText(to)} || substr(${column}, ${from.length + 1}) ` +
      `WHERE ${column} = ${sqlText(from)} OR substr(${column}, 1, ${from.length + 1}) = ${sqlText(from + CLOCK_SHARD_MARK)}`,
  ];
}

function withColumnsRenamed(table: ActualTable, renamed: ReadonlyMap<string, string>): ActualTable {
  if (renamed.size === 0) return table;
  const name = (column: string): string => renamed.get(column) ?? column;
  // A case-folded key reads `lower(<column>)` (schema-names.ts `indexKeys`).
  const key = (column: string): string => {
    const folded = /^lower\((.*)\)$/.exec(column)?.[1];
    return folded === undefined ? name(column) : `lower(${name(folded)})`;
  };
  return {
    ...table,
    columns: table.columns.map((column) => ({ ...column, name: name(column.name) })),
    primaryKey: table.primaryKey.map(name),
    foreignKeys: table.foreignKeys.map((fk) => ({ ...fk, column: name(fk.column) })),
    indexes: table.indexes.map((index) => ({ ...index, columns: index.columns.map(key) })),
  };
}

/**
 * Index and constraint names derive from the table's and columns' names
 * (schema-names.ts `constraintName`): they are given the new ones, so an
 * error the database reports by constraint still leads to the field.
 */
function renameDerivedNames(table: TableSpec, actual: ActualTable, dialect: SchemaDialect): { sql: string[]; table: ActualTable } {
  const sql: string[] = [];
  const taken = new Set(actual.indexes.map((index) => index.name));
  const indexes = actual.indexes.map((index): ActualIndex => {
    const wanted = table.indexes.find((spec) => servesIndex(spec, index, dialect.idOrder));
    if (wanted === undefined || wanted.name === index.name || taken.has(wanted.name)) return index;
    sql.push(...dialect.renameIndex(index, wanted));
    taken.add(wanted.name);
    return { ...index, name: wanted.name };
  });
  const rename = (from: string | undefined, to: string): boolean => {
    if (from === undefined || from === to) return false;
    const statements = dialect.renameConstraint(table.name, from, to);
    sql.push(...statements);
    return statements.length > 0;
  };
  const foreignKeys = actual.foreignKeys.map((fk) => {
    const wanted = table.columns.find((column) => column.name === fk.column)?.references?.name;
    return wanted !== undefined && rename(fk.name, wanted) ? { ...fk, name: wanted } : fk;
  });
  const columns = actual.columns.map((column): ActualColumn => {
    const wanted = constraintName(table.name, column.name, 'check');
    return column.check !== undefined && rename(column.check.name, wanted) ? { ...column, check: { ...column.check, name: wanted } } : column;
  });
  const primaryKeyName = constraintName(table.name, table.primaryKey.join('_'), 'pkey');
  const keyRenamed = rename(actual.primaryKeyName, primaryKeyName);
  return { sql, table: { ...actual, indexes, foreignKeys, columns, primaryKeyName: keyRenamed ? primaryKeyName : actual.primaryKeyName } };
}
