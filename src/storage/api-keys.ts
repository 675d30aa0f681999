import type { Database } from './dialect.js';
import { API_KEY_REVOCATIONS_GENERATION, GenerationStore } from './generations.js';
import { API_KEYS_TABLE } from './migrate/desired-schema.js';

/** An API key as stored: never the key itself, only its hash (src/auth/api-key.ts makes both). */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
  /** ISO-8601 UTC, or null while the key is valid. */
  readonly revokedAt: string | null;
}

export interface NewApiKey {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  /** sha256 of the key, hex. */
  readonly hash: string;
  readonly createdAt: string;
}

export type RevokeResult = 'revoked' | 'already-revoked' | 'not-found';

interface Row {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

/**
 * The API key table the server owns (`_diglot_api_keys`, created by
 * `migrate` with the other system tables). A lookup by hash is one
 * statement on a unique index; the statement texts are built once.
 */
export class ApiKeyStore {
  private readonly findSql: string;
  private readonly columns: string;
  private readonly table: string;
  private readonly generations: GenerationStore;

  constructor(private readonly db: Database) {
    this.generations = new GenerationStore(db);
    const q = (name: string): string => db.sql.quoteIdent(name);
    this.table = q(API_KEYS_TABLE);
    this.columns = ['id', 'name', 'role', 'created_at', 'revoked_at'].map(q).join(', ');
    this.findSql = `SELECT ${this.columns} FROM ${this.table} WHERE ${q('key_hash')} = ${db.sql.placeholder(0)}`;
  }

  /** The key with this hash, revoked or not. */
  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.all<Row>(this.findSql, [hash]);
    return row === undefined ? undefined : recordOf(row);
  }

  /** Stores a new key; false when its name is taken (names are unique, revoked keys' included, so `revoke <name>` is never ambiguous). */
  async insert(key: NewApiKey): Promise<boolean> {
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const p = (i: number): string => this.db.sql.placeholder(i);
    return this.db.transaction(async (tx) => {
      const taken = await tx.all(`SELECT 1 AS taken FROM ${this.table} WHERE ${q('name')} = ${p(0)}`, [key.name]);
      if (taken.length > 0) return false;
      await tx.run(
        `INSERT INTO ${this.table} (${['id', 'name', 'role', 'key_hash', 'created_at'].map(q).join(', ')}) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`,
        [key.id, key.name, key.role, key.hash, key.createdAt],
      );
      return true;
    });
  }

  /** Every key, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const rows = await this.db.all<Row>(`SELECT ${this.columns} FROM ${this.table} ORDER BY ${q('created_at')}, ${q('id')}`);
    return rows.map(recordOf);
  }

  /** Revokes the key with this id, or else with this name. */
  async revoke(idOrName: string, at: string): Promise<RevokeResult> {
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const p = (i: number): string => this.db.sql.placeholder(i);
    return this.db.transaction(async (tx) => {
      const find = async (column: string): Promise<Row | undefined> =>
        (await tx.all<Row>(`SELECT ${this.columns} FROM ${this.table} WHERE ${q(column)} = ${p(0)}`, [idOrName]))[0];
      const key = (await find('id')) ?? (await find('name'));
      if (key === undefined) return 'not-found';
      if (key.revoked_at !== null) return 'already-revoked';
      await tx.run(`UPDATE ${this.table} SET ${q('revoked_at')} = ${p(0)} WHERE ${q('id')} = ${p(1)}`, [at, key.id]);
      // Processes on one SQLite file, the CLI's `keys revoke` included, have no channel: they watch this.
      await this.generations.bump(API_KEY_REVOCATIONS_GENERATION, tx);
      return 'revoked';
    });
  }

  /** Whether the table exists: `migrate` (or `serve`) has run on this database since API keys arrived. */
  async ready(): Promise<boolean> {
    const schema = await this.db.schema.introspect(this.db);
    return schema.tables.has(API_KEYS_TABLE);
  }
}

function recordOf(row: Row): ApiKeyRecord {
  return Object.freeze({ id: row.id, name: row.name, role: row.role, createdAt: row.created_at, revokedAt: row.revoked_at });
}
