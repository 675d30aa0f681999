import type { ScalarName } from '../../schema/model.js';
import type { SqlRunner } from '../dialect.js';
import type { IdOrder } from './schema-names.js';

/**
 * The database schema as plain data, in two forms: what the model asks for
 * (`SchemaSpec`, built by `desiredSchema`) and what a database holds
 * (`ActualSchema`, read by each dialect's `introspect`). `diffSchema` turns
 * the difference into migration steps.
 */

/** A model scalar, plus the two column types only Diglot's own tables use. */
export type ColumnType = ScalarName | 'BigInt' | 'Serial';

export type DefaultSpec =
  /** A constant, already of the column's model type. */
  | { readonly kind: 'value'; readonly value: unknown }
  /** The time of the insert (`@createdAt`, `@updatedAt`, system timestamps). */
  | { readonly kind: 'now' };

export type OnDelete = 'cascade' | 'set null' | 'restrict';

export interface ForeignKeySpec {
  /** Constraint name (PostgreSQL names it; SQLite keeps it only in its text). */
  readonly name: string;
  readonly table: string;
  readonly column: string;
  readonly onDelete: OnDelete;
}

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
  readonly default: DefaultSpec | undefined;
  /** Allowed values of an enum column (a CHECK constraint). */
  readonly enumValues: readonly string[] | undefined;
  readonly references: ForeignKeySpec | undefined;
  /** The model field stored here, for messages; undefined for join and system columns. */
  readonly field: string | undefined;
  /** The column's name before `@renamed(from:)`: a migration renames that column rather than adding this one. */
  readonly renamedFrom?: string | undefined;
}

export interface IndexSpec {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  /** Each column indexed as its case-folded value (`SqlCompilerHooks.foldCase`): an account identifier, unique whatever its case. */
  readonly caseInsensitive: boolean;
  /**
   * The last column, when it is there only to order rows with equal keys
   * (the id). An index made without it, as earlier versions made them,
   * still serves lookups and is kept: rebuilding it would hold a lock on the
   * table (on PostgreSQL, against every instance) while `serve` starts.
   */
  readonly tieBreak: string | undefined;
  /**
   * The last column is a record id, indexed by the terms it orders by
   * (`SqlCompilerHooks.idOrder`: shorter ids first), so a list in the id
   * order, or ending with it, is read from the index with no sort step.
   */
  readonly idOrdered?: boolean;
  /**
   * An id-ordered index that also holds the id itself after its order terms
   * where they do not (SQLite's one key): a link table's page then reads the
   * linked ids from the index alone, without a lookup of each link's row.
   */
  readonly idCovered?: boolean;
}

export interface TableSpec {
  readonly name: string;
  /** `resource`: one per model type; `join`: many-to-many links; `system`: Diglot's own bookkeeping. */
  readonly kind: 'resource' | 'join' | 'system';
  /** The model type stored here (resource tables). */
  readonly type: string | undefined;
  readonly columns: readonly ColumnSpec[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly IndexSpec[];
  /** The table's name before `@renamed(from:)` (its type's, or a join table's owner's): a migration renames that table. */
  readonly renamedFrom?: string | undefined;
}

export interface SchemaSpec {
  readonly tables: readonly TableSpec[];
}

// ---------------------------------------------------------------------------
// What a database holds

export interface ActualCheck {
  readonly name: string;
  /** The constants the check's IN list allows (string contents or numbers), as text. */
  readonly values: readonly string[];
}

export interface ActualColumn {
  readonly name: string;
  /** Physical type as the dialect spells it in `SchemaDialect.columnType` (for comparison). */
  readonly type: string;
  readonly nullable: boolean;
  /** The default expression as the database reports it, or undefined when there is none. */
  readonly defaultRaw: string | undefined;
  readonly check: ActualCheck | undefined;
}

export interface ActualForeignKey {
  readonly name: string | undefined;
  readonly column: string;
  readonly table: string;
  readonly refColumn: string;
  readonly onDelete: string;
}

export interface ActualIndex {
  readonly name: string;
  /** Column names; an expression in `expressionKey`'s form, such as `lower(<column>)` (see `indexKeys`). */
  readonly columns: readonly string[];
  readonly unique: boolean;
}

export interface ActualTable {
  readonly name: string;
  readonly columns: readonly ActualColumn[];
  readonly primaryKey: readonly string[];
  readonly foreignKeys: readonly ActualForeignKey[];
  /** Indexes made with CREATE INDEX (not the ones behind a primary key). */
  readonly indexes: readonly ActualIndex[];
  readonly hasRows: boolean;
  /** The primary key constraint's name, where the database keeps one apart (PostgreSQL). */
  readonly primaryKeyName?: string | undefined;
}

export interface ActualSchema {
  readonly tables: ReadonlyMap<string, ActualTable>;
  /**
   * Tables with a change-clock row: the ones Diglot created. Tables outside
   * this set and the model are someone else's and are left alone. Undefined
   * when the clock table does not exist yet.
   */
  readonly clockTables: ReadonlySet<string> | undefined;
}

// ---------------------------------------------------------------------------
// Steps

export interface MigrationStep {
  /** Statements, run in order inside the migration's one transaction. */
  readonly sql: readonly string[];
  readonly description: string;
  /** Loses data or may fail on existing rows: refused without `allowDestructive`. */
  readonly destructive: boolean;
  /** Set when the step cannot be applied as the model stands (for example a required column without a default on a table with rows). */
  readonly problem: string | undefined;
  /**
   * An index built without blocking writes (PostgreSQL's CREATE INDEX
   * CONCURRENTLY): it cannot run in a transaction, so it runs after the
   * migration's transaction commits, still under the migration lock.
   */
  readonly concurrentIndex?: IndexSpec;
  /** An index dropped without blocking writes (DROP INDEX CONCURRENTLY), after the concurrent builds that replace it. */
  readonly concurrentDrop?: ActualIndex;
}

/** One change to one column of an existing table, in neutral terms; each dialect spells it. */
export type ColumnChange =
  | { readonly kind: 'add'; readonly column: ColumnSpec }
  | { readonly kind: 'drop'; readonly column: ActualColumn }
  | { readonly kind: 'type'; readonly column: ColumnSpec; readonly from: ActualColumn }
  | { readonly kind: 'nullable'; readonly column: ColumnSpec; readonly from: ActualColumn }
  | { readonly kind: 'default'; readonly column: ColumnSpec; readonly from: ActualColumn }
  | { readonly kind: 'check'; readonly column: ColumnSpec; readonly from: ActualColumn }
  | { readonly kind: 'foreignKey'; readonly column: ColumnSpec; readonly from: ActualForeignKey | undefined };

/**
 * The DDL spellings and schema reading of one dialect. Each driver supplies
 * one; `diffSchema` and `migrate` are written once against it.
 */
export interface SchemaDialect {
  introspect(db: SqlRunner): Promise<ActualSchema>;
  /** The physical type of a column, spelled as `introspect` reports it. */
  columnType(type: ColumnType): string;
  /**
   * The values a CHECK constraint on the column allows, as `introspect`
   * reports them (enum values; SQLite also checks booleans are 0 or 1).
   */
  checkValues(column: ColumnSpec): readonly string[] | undefined;
  /** CREATE TABLE (with its indexes); FKs to tables in `deferred` are added by the returned `after` statements. */
  createTable(table: TableSpec, deferred: ReadonlySet<string>): { readonly create: readonly string[]; readonly after: readonly string[] };
  createIndex(index: IndexSpec): string;
  /** The terms an id orders by, as the compiler writes them (`SqlCompilerHooks.idOrder`): what an id-ordered index holds. */
  idOrder: IdOrder;
  dropIndex(index: IndexSpec | ActualIndex, table: string): string;
  dropTable(name: string): string;
  /** Renames keep every row: ALTER TABLE … RENAME (references from other tables follow on both databases). */
  renameTable(from: string, to: string): readonly string[];
  renameColumn(table: string, from: string, to: string): readonly string[];
  renameIndex(from: ActualIndex, to: IndexSpec): readonly string[];
  /**
   * Statements that give a constraint the name its renamed table or column
   * derives; none where the name lives only in the table's text (SQLite),
   * until the table is next rebuilt.
   */
  renameConstraint(table: string, from: string, to: string): readonly string[];
  /** Statements that make one change in place, or undefined when the table must be rebuilt instead. */
  alter(table: TableSpec, change: ColumnChange): readonly string[] | undefined;
  /** Statements that rebuild `table` to the desired shape, copying its rows (SQLite's 12-step procedure). */
  rebuild(table: TableSpec, actual: ActualTable): readonly string[];
  /** The canonical key (see `defaultKey` in schema-names.ts) of a default the database reports. */
  defaultKey(raw: string | undefined, type: ColumnType): string | undefined;
  /** A SQL literal for a default value. */
  literal(value: unknown, type: ColumnType): string;
  /**
   * Runs a migration: one transaction, serialized against other migrators,
   * with whatever the dialect needs around DDL (SQLite: foreign keys off and
   * checked before commit; PostgreSQL: no statement timeout, inside `withMigrationLock`).
   */
  runMigration<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * Holds the migration lock around a whole migration (its transaction and
   * then its concurrent index builds), on a session outside any transaction
   * that `buildIndexesConcurrently` runs on. Absent where the migration's
   * transaction is the lock (SQLite).
   */
  withMigrationLock?: <T>(work: (session: SqlRunner) => Promise<T>) => Promise<T>;
  /**
   * Builds indexes on existing tables without blocking writes, on the
   * session that holds the migration lock; an index a failed build left
   * invalid is dropped and built again, one already built is left alone.
   * Absent where index builds run in the migration's transaction (SQLite).
   */
  buildIndexesConcurrently?: (session: SqlRunner, indexes: readonly IndexSpec[], onIndex: (index: IndexSpec, position: number) => void) => Promise<void>;
  /** Drops an index without blocking writes, on that session, if it is still there. Present with `buildIndexesConcurrently`. */
  dropIndexConcurrently?: (session: SqlRunner, index: ActualIndex) => Promise<void>;
}
