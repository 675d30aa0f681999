import type { Field, JoinTable, Model, OnDelete, ResourceType } from '../../schema/model.js';
import { columnName, typeNames } from '../../schema/renamed.js';
import { constraintName } from './schema-names.js';
import type { ColumnSpec, IndexSpec, OnDelete as OnDeleteSql, SchemaSpec, TableSpec } from './schema-spec.js';

export const MIGRATIONS_TABLE = '_diglot_migrations';
export const CLOCK_TABLE = '_diglot_clock';
/** The schemas applied to this database, in order (the latest is what clients see): `applied-schema.ts`. */
export const SCHEMAS_TABLE = '_diglot_schemas';
/**
 * A clock row is named after its table, or, where a table's clock is split
 * over several rows (`engine/change-clock.ts`), `<table>#<shard>`: no table
 * name contains the mark.
 */
export const CLOCK_SHARD_MARK = '#';
/** The outbox: one row per committed write, its event (see storage/outbox.ts). */
export const EVENTS_TABLE = '_diglot_events';
/** Webhook deliveries: one row per event and endpoint, its state and next attempt. */
export const DELIVERIES_TABLE = '_diglot_deliveries';
/** Every delivery attempt: status, latency, response code. */
export const DELIVERY_LOG_TABLE = '_diglot_delivery_log';
/** Small counters: the last publication position of the events, and the generations processes watch (storage/generations.ts). */
export const EVENT_STATE_TABLE = '_diglot_event_state';
/** API keys for machines (`diglot keys`): their hashes, never the keys (see storage/api-keys.ts). */
export const API_KEYS_TABLE = '_diglot_api_keys';
/** Automatic persisted queries (Apollo's protocol), shared by every instance (see storage/persisted-queries.ts). */
export const PERSISTED_QUERIES_TABLE = '_diglot_persisted_queries';
/** Webhook endpoints added at run time (the admin API), beside the configuration file's (see storage/webhook-endpoints.ts). */
export const WEBHOOK_ENDPOINTS_TABLE = '_diglot_webhook_endpoints';

/** Counts of uses of deprecated things, per client (see storage/deprecation-uses.ts). */
export const DEPRECATION_USES_TABLE = '_diglot_deprecation_uses';
/** When each deprecated thing was first served as deprecated, for those whose `@deprecated` gives no `since`. */
export const DEPRECATIONS_TABLE = '_diglot_deprecations';

/** Accounts (`@account`): password hashes, refresh-token sessions, one-time tokens, signing keys (see storage/accounts.ts). */
export const CREDENTIALS_TABLE = '_diglot_credentials';
export const SESSIONS_TABLE = '_diglot_sessions';
export const ONE_TIME_TOKENS_TABLE = '_diglot_one_time_tokens';
export const SIGNING_KEYS_TABLE = '_diglot_signing_keys';

/** Tables whose names start with this belong to Diglot itself. */
export const SYSTEM_PREFIX = '_diglot_';

/**
 * The schema the model asks for: one table per resource type, one per
 * many-to-many relation, and Diglot's system tables. Pure: the same model
 * always gives the same spec, which is what makes `migrate` idempotent.
 */
export function desiredSchema(model: Model): SchemaSpec {
  const tables: TableSpec[] = [];
  for (const type of model.types) tables.push(resourceTable(model, type));
  for (const join of model.joinTables) tables.push(joinTable(model, join));
  tables.push(...SYSTEM_TABLES);
  const account = model.account === undefined ? undefined : model.typesByName.get(model.account.type);
  if (account !== undefined) tables.push(...accountTables(account.table));
  return Object.freeze({ tables: Object.freeze(tables) });
}

function resourceTable(model: Model, type: ResourceType): TableSpec {
  const idField = type.fields.find((field) => field.kind === 'scalar' && field.auto === 'id');
  const idColumn = idField?.kind === 'scalar' ? idField.column : 'id';
  const columns: ColumnSpec[] = [column(idColumn, 'ID', { nullable: false, field: idField?.name ?? 'id' })];
  // The primary key finds a record by id; this one lists records in the id order (shorter ids first).
  const indexes: IndexSpec[] = [idOrderedIndex(type.table, [], idColumn)];
  for (const field of type.fields) {
    if (field === idField) continue;
    const spec = fieldColumn(model, type, field);
    if (spec === undefined) continue;
    columns.push(previousColumn(field) === undefined ? spec : Object.freeze({ ...spec, renamedFrom: previousColumn(field) }));
    const index = fieldIndex(type.table, field, spec, idColumn, model.account?.type === type.name && model.account.identifier === field.name);
    if (index !== undefined) indexes.push(index);
  }
  for (const names of type.indexes) {
    // The schema loader checked that each name is a field with a column of its own.
    const columns = names.map((name) => columnOfField(type.fieldsByName.get(name)));
    indexes.push(idOrderedIndex(type.table, columns, idColumn));
  }
  return freezeTable({ name: type.table, kind: 'resource', type: type.name, columns, primaryKey: [idColumn], indexes, renamedFrom: previousTable(type) });
}

/** The table a type renamed with `@renamed(from:)` had, when its name changes it. */
function previousTable(type: ResourceType): string | undefined {
  const table = type.renamedFrom === undefined ? undefined : typeNames(type.renamedFrom).table;
  return table === type.table ? undefined : table;
}

/** The column a field renamed with `@renamed(from:)` had. */
function previousColumn(field: Field): string | undefined {
  if (field.renamedFrom === undefined || (field.kind !== 'scalar' && field.kind !== 'file' && field.kind !== 'toOne')) return undefined;
  return columnName(field.renamedFrom, field.kind === 'toOne' ? 'toOne' : 'stored');
}

/**
 * A join table is named after its owning type's table and field
 * (pair-relations.ts): the name it had when either was called otherwise.
 */
function previousJoinTable(model: Model, join: JoinTable): string | undefined {
  const owner = model.typesByName.get(join.sourceType);
  const field = owner?.fields.find((candidate) => candidate.kind === 'manyToMany' && candidate.joinTable === join.name && candidate.ownColumn === join.sourceColumn);
  if (owner === undefined || field === undefined) return undefined;
  const table = previousTable(owner) ?? owner.table;
  const name = `${table}_${columnName(field.renamedFrom ?? field.name, 'stored')}`;
  return name === join.name ? undefined : name;
}

function fieldColumn(model: Model, type: ResourceType, field: Field): ColumnSpec | undefined {
  switch (field.kind) {
    case 'scalar': {
      // Lists (`[String!]`) are stored as one JSON array.
      const scalar = field.list ? 'JSON' : field.scalar;
      const enumValues = field.enum === undefined || field.list ? undefined : model.enums.get(field.enum)?.values;
      const timestamp = field.auto === 'createdAt' || field.auto === 'updatedAt';
      return column(field.column, scalar, {
        nullable: field.nullable,
        field: field.name,
        default:
          field.default !== undefined ? { kind: 'value', value: field.default.value } : timestamp ? { kind: 'now' } : undefined,
        enumValues: enumValues === undefined ? undefined : Object.freeze([...enumValues]),
      });
    }
    case 'file':
      return column(field.column, 'String', { nullable: field.nullable, field: field.name });
    case 'toOne': {
      const target = model.typesByName.get(field.target);
      if (target === undefined) throw new Error(`relation ${field.name} names unknown type ${field.target}`);
      return column(field.column, 'ID', {
        nullable: field.nullable,
        field: field.name,
        references: {
          name: constraintName(type.table, field.column, 'fkey'),
          table: target.table,
          column: 'id',
          // As the schema says (`@relation(onDelete:)`); the engine plans the same action first, to check rules, write events and release files.
          onDelete: ON_DELETE_SQL[field.onDelete],
        },
      });
    }
    case 'toMany':
    case 'manyToMany':
      return undefined;
  }
}

const ON_DELETE_SQL: Readonly<Record<OnDelete, OnDeleteSql>> = { RESTRICT: 'restrict', CASCADE: 'cascade', SET_NULL: 'set null' };

function columnOfField(field: Field | undefined): string {
  if (field?.kind === 'scalar' || field?.kind === 'toOne') return field.column;
  throw new Error(`@index names ${field?.name ?? 'a missing field'}, which has no column`);
}

function fieldIndex(table: string, field: Field, spec: ColumnSpec, idColumn: string, identifier: boolean): IndexSpec | undefined {
  // JSON columns have no ordering (PostgreSQL's json type has no b-tree
  // operators), so they are never indexed; the schema loader rejects @unique
  // and @index on them.
  if (spec.type === 'JSON') return undefined;
  // An account identifier is one account whatever its case (`Ann@x.org` is `ann@x.org`): unique, and looked up, case-folded.
  if (identifier) return index(table, [spec.name], true, undefined, true);
  if (field.kind === 'scalar' && field.unique) return index(table, [spec.name], true);
  if (field.kind === 'scalar' && field.indexed) return idOrderedIndex(table, [spec.name], idColumn);
  // Every foreign key is indexed: cascades and `/users/42/posts` look rows up by it.
  if (field.kind === 'toOne') return idOrderedIndex(table, [spec.name], idColumn);
  return undefined;
}

function joinTable(model: Model, join: JoinTable): TableSpec {
  const tableOf = (typeName: string): string => {
    const type = model.typesByName.get(typeName);
    if (type === undefined) throw new Error(`join table ${join.name} names unknown type ${typeName}`);
    return type.table;
  };
  const link = (name: string, typeName: string): ColumnSpec =>
    column(name, 'ID', {
      nullable: false,
      references: { name: constraintName(join.name, name, 'fkey'), table: tableOf(typeName), column: 'id', onDelete: 'cascade' },
    });
  return freezeTable({
    name: join.name,
    kind: 'join',
    type: undefined,
    columns: [link(join.sourceColumn, join.sourceType), link(join.targetColumn, join.targetType)],
    primaryKey: [join.sourceColumn, join.targetColumn],
    // The primary key keeps each link once; these list one record's links
    // from either side in the id order of the other (a user's followers,
    // and those they follow).
    indexes: [idOrderedIndex(join.name, [join.sourceColumn], join.targetColumn, true), idOrderedIndex(join.name, [join.targetColumn], join.sourceColumn, true)],
    renamedFrom: previousJoinTable(model, join),
  });
}

const SYSTEM_TABLES: readonly TableSpec[] = [
  freezeTable({
    name: SCHEMAS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('version', 'Int', { nullable: false }),
      column('applied_at', 'DateTime', { nullable: false }),
      column('hash', 'String', { nullable: false }),
      // The SDL files as [{ file, text }]: what `diglot diff --from <database>` and the start-up guard compare against.
      column('sources', 'JSON', { nullable: false }),
      column('applied_by', 'String', { nullable: false }),
    ],
    primaryKey: ['version'],
    indexes: [],
  }),
  freezeTable({
    name: MIGRATIONS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('version', 'Int', { nullable: false }),
      column('applied_at', 'DateTime', { nullable: false, default: { kind: 'now' } }),
      column('model_hash', 'String', { nullable: false }),
      column('steps', 'JSON', { nullable: false }),
    ],
    primaryKey: ['version'],
    indexes: [],
  }),
  freezeTable({
    name: CLOCK_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('table_name', 'String', { nullable: false }),
      column('version', 'BigInt', { nullable: false }),
      // When the clock last moved: the basis of Last-Modified / If-Modified-Since.
      column('changed_at', 'DateTime', { nullable: true }),
    ],
    primaryKey: ['table_name'],
    indexes: [],
  }),
  freezeTable({
    name: EVENTS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('seq', 'Serial', { nullable: false }),
      // The event's stable id (`evt_…`), the `webhook-id` of every delivery of it.
      column('id', 'String', { nullable: false }),
      column('type', 'String', { nullable: false }),
      column('record_id', 'String', { nullable: false }),
      // JSON text, kept as text: it is spliced into payloads as it is, never parsed on the write path.
      column('principal', 'String', { nullable: false }),
      column('record', 'String', { nullable: true }),
      column('previous', 'String', { nullable: true }),
      column('target', 'String', { nullable: true }),
      column('created_at', 'DateTime', { nullable: false }),
      // Set after commit, in commit order, by whichever instance publishes it (null: not yet).
      column('published', 'BigInt', { nullable: true }),
    ],
    primaryKey: ['seq'],
    // No index on the event id: each would cost every write an index update, and nothing looks events up by it.
    indexes: [index(EVENTS_TABLE, ['published'], false), index(EVENTS_TABLE, ['created_at'], false)],
  }),
  freezeTable({
    name: DELIVERIES_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('id', 'ID', { nullable: false }),
      column('event_seq', 'BigInt', { nullable: false }),
      column('endpoint', 'String', { nullable: false }),
      // pending · delivered · dead
      column('status', 'String', { nullable: false }),
      column('attempts', 'Int', { nullable: false }),
      column('next_at', 'DateTime', { nullable: false }),
      column('first_at', 'DateTime', { nullable: false }),
      column('last_code', 'Int', { nullable: true }),
      column('last_error', 'String', { nullable: true }),
      column('done_at', 'DateTime', { nullable: true }),
    ],
    primaryKey: ['id'],
    indexes: [index(DELIVERIES_TABLE, ['status', 'next_at'], false), index(DELIVERIES_TABLE, ['event_seq'], false)],
  }),
  freezeTable({
    name: DELIVERY_LOG_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('seq', 'Serial', { nullable: false }),
      column('delivery_id', 'ID', { nullable: false }),
      column('attempt', 'Int', { nullable: false }),
      column('at', 'DateTime', { nullable: false }),
      // ok · http · timeout · network
      column('outcome', 'String', { nullable: false }),
      column('code', 'Int', { nullable: true }),
      column('latency_ms', 'Int', { nullable: false }),
      column('error', 'String', { nullable: true }),
    ],
    primaryKey: ['seq'],
    indexes: [index(DELIVERY_LOG_TABLE, ['delivery_id'], false)],
  }),
  freezeTable({
    name: EVENT_STATE_TABLE,
    kind: 'system',
    type: undefined,
    columns: [column('name', 'String', { nullable: false }), column('value', 'BigInt', { nullable: false })],
    primaryKey: ['name'],
    indexes: [],
  }),
  freezeTable({
    name: API_KEYS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('id', 'ID', { nullable: false }),
      column('name', 'String', { nullable: false }),
      column('role', 'String', { nullable: false }),
      // sha256 of the key, hex: every request with a key looks it up by this.
      column('key_hash', 'String', { nullable: false }),
      column('created_at', 'DateTime', { nullable: false, default: { kind: 'now' } }),
      column('revoked_at', 'DateTime', { nullable: true }),
    ],
    primaryKey: ['id'],
    indexes: [index(API_KEYS_TABLE, ['key_hash'], true), index(API_KEYS_TABLE, ['name'], true)],
  }),
  freezeTable({
    name: PERSISTED_QUERIES_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      // sha256 of the document, lowercase hex: written once, never changed, so any copy of a row stays true.
      column('hash', 'String', { nullable: false }),
      column('document', 'String', { nullable: false }),
      // ms since the epoch: the oldest are pruned past the table's bound.
      column('registered_at', 'BigInt', { nullable: false }),
    ],
    primaryKey: ['hash'],
    indexes: [index(PERSISTED_QUERIES_TABLE, ['registered_at'], false, 'hash')],
  }),
  freezeTable({
    name: WEBHOOK_ENDPOINTS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [
      column('name', 'String', { nullable: false }),
      column('url', 'String', { nullable: false }),
      // JSON text: the event patterns, and the filter (null: none).
      column('events', 'String', { nullable: false }),
      column('filter', 'String', { nullable: true }),
      // The signing secret: needed in clear to sign, never sent back.
      column('secret', 'String', { nullable: false }),
      column('paused', 'Int', { nullable: false, default: { kind: 'value', value: 0 } }),
      column('timeout_ms', 'Int', { nullable: true }),
      column('retry_for_ms', 'BigInt', { nullable: true }),
      column('backoff_ms', 'Int', { nullable: true }),
      column('created_at', 'DateTime', { nullable: false }),
      column('updated_at', 'DateTime', { nullable: false }),
    ],
    primaryKey: ['name'],
    indexes: [],
  }),
  freezeTable({
    name: DEPRECATION_USES_TABLE,
    kind: 'system',
    type: undefined,
    // One row per deprecated thing, client name and kind of caller; times are ms since the epoch.
    columns: [
      column('coordinate', 'String', { nullable: false }),
      column('client', 'String', { nullable: false }),
      column('caller', 'String', { nullable: false }),
      column('uses', 'BigInt', { nullable: false }),
      column('first_seen', 'BigInt', { nullable: false }),
      column('last_seen', 'BigInt', { nullable: false }),
    ],
    primaryKey: ['coordinate', 'client', 'caller'],
    indexes: [],
  }),
  freezeTable({
    name: DEPRECATIONS_TABLE,
    kind: 'system',
    type: undefined,
    columns: [column('coordinate', 'String', { nullable: false }), column('deprecated_at', 'BigInt', { nullable: false })],
    primaryKey: ['coordinate'],
    indexes: [],
  }),
];

/**
 * The account tables, there only when a type is marked `@account`. Every row
 * names its account with a foreign key that cascades, so deleting the
 * account deletes its password hash and ends its sessions. Times are ms
 * since the epoch (BigInt): compared with a parameter the same way on both
 * databases.
 */
function accountTables(accountTable: string): TableSpec[] {
  const accountId = (table: string): ColumnSpec =>
    column('account_id', 'ID', { nullable: false, references: { name: constraintName(table, 'account_id', 'fkey'), table: accountTable, column: 'id', onDelete: 'cascade' } });
  const ms = (name: string, nullable: boolean): ColumnSpec => column(name, 'BigInt', { nullable });
  return [
    freezeTable({
      name: CREDENTIALS_TABLE,
      kind: 'system',
      type: undefined,
      // The argon2id PHC string, which carries its own salt and parameters.
      columns: [accountId(CREDENTIALS_TABLE), column('password_hash', 'String', { nullable: false }), ms('updated_at', false)],
      primaryKey: ['account_id'],
      indexes: [],
    }),
    freezeTable({
      name: SESSIONS_TABLE,
      kind: 'system',
      type: undefined,
      // One row per refresh token ever issued: a family is one sign-in and its rotations.
      columns: [
        column('id', 'ID', { nullable: false }),
        column('family_id', 'ID', { nullable: false }),
        accountId(SESSIONS_TABLE),
        column('token_hash', 'String', { nullable: false }),
        ms('created_at', false),
        ms('expires_at', false),
        ms('rotated_at', true),
        ms('revoked_at', true),
      ],
      primaryKey: ['id'],
      indexes: [index(SESSIONS_TABLE, ['token_hash'], true), index(SESSIONS_TABLE, ['family_id'], false, 'id'), index(SESSIONS_TABLE, ['account_id'], false, 'id')],
    }),
    freezeTable({
      name: ONE_TIME_TOKENS_TABLE,
      kind: 'system',
      type: undefined,
      // Password reset and email verification: single-use, expiring, stored hashed.
      columns: [
        column('token_hash', 'String', { nullable: false }),
        accountId(ONE_TIME_TOKENS_TABLE),
        column('purpose', 'String', { nullable: false }),
        ms('created_at', false),
        ms('expires_at', false),
        ms('used_at', true),
      ],
      primaryKey: ['token_hash'],
      indexes: [index(ONE_TIME_TOKENS_TABLE, ['account_id'], false, 'token_hash')],
    }),
    freezeTable({
      name: SIGNING_KEYS_TABLE,
      kind: 'system',
      type: undefined,
      // HS256 keys for the tokens Diglot issues; a retired key verifies until its last token expires.
      columns: [column('kid', 'String', { nullable: false }), column('secret', 'String', { nullable: false }), ms('created_at', false), ms('retired_at', true)],
      primaryKey: ['kid'],
      indexes: [],
    }),
  ];
}

function column(
  name: string,
  type: ColumnSpec['type'],
  options: Partial<Omit<ColumnSpec, 'name' | 'type'>> & { readonly nullable: boolean },
): ColumnSpec {
  return Object.freeze({
    name,
    type,
    nullable: options.nullable,
    default: options.default,
    enumValues: options.enumValues,
    references: options.references === undefined ? undefined : Object.freeze(options.references),
    field: options.field,
  });
}

/**
 * An index over `columns`, named after them. A non-unique index ends with the
 * key its rows are ordered by (`tieBreak`): every list Diglot reads breaks ties
 * by id, so `WHERE author_id = ? ORDER BY created_at DESC, id DESC LIMIT 10`
 * walks (author_id, created_at, id) in order and stops after ten entries,
 * where an index without the id makes the database fetch and sort every one
 * of the author's posts first (on a rowid table SQLite's implicit last column
 * is the rowid, not the id).
 */
function index(table: string, columns: readonly string[], unique: boolean, tieBreak?: string, caseInsensitive = false): IndexSpec {
  const appended = tieBreak === undefined || unique || columns.includes(tieBreak) ? undefined : tieBreak;
  return Object.freeze({
    name: constraintName(table, columns.join('_'), unique ? 'key' : 'idx'),
    table,
    columns: Object.freeze(appended === undefined ? [...columns] : [...columns, appended]),
    unique,
    caseInsensitive,
    tieBreak: appended,
  });
}

/**
 * A non-unique index over `columns` then the record id `id` as it orders
 * (`IndexSpec.idOrdered`), so pages in the id order, or in a column's order
 * then the id's, walk it and stop at their limit. Named apart from the
 * `(columns, id)` index earlier versions made, so a migration can build it
 * beside that one before dropping it. `covered`: see `IndexSpec.idCovered`.
 */
function idOrderedIndex(table: string, columns: readonly string[], id: string, covered = false): IndexSpec {
  const spec = index(table, columns, false, id);
  // `@index(fields: ["id", "title"])` names the id itself, somewhere else than last.
  if (spec.columns.at(-1) !== id) return spec;
  return Object.freeze({ ...spec, name: constraintName(table, [...columns, 'by', id].join('_'), 'idx'), idOrdered: true, ...(covered ? { idCovered: true } : {}) });
}

function freezeTable(table: TableSpec): TableSpec {
  return Object.freeze({
    ...table,
    columns: Object.freeze([...table.columns]),
    primaryKey: Object.freeze([...table.primaryKey]),
    indexes: Object.freeze([...table.indexes]),
  });
}
