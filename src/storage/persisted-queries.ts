import type { Database } from './dialect.js';
import { PERSISTED_QUERIES_TABLE } from './migrate/desired-schema.js';

/**
 * The automatic persisted queries every instance shares
 * (`_diglot_persisted_queries`, created by `migrate`): append-only, keyed
 * by the document's sha256, so a row never changes once written and no
 * cache of it ever needs invalidating. The statement texts are built once.
 */
export class PersistedQueryStore {
  private readonly findSql: string;
  private readonly insertSql: string;
  private readonly pruneSql: string;

  constructor(private readonly db: Database) {
    const q = (name: string): string => db.sql.quoteIdent(name);
    const p = (i: number): string => db.sql.placeholder(i);
    const table = q(PERSISTED_QUERIES_TABLE);
    const [hash, document, registeredAt] = [q('hash'), q('document'), q('registered_at')];
    this.findSql = `SELECT ${document} FROM ${table} WHERE ${hash} = ${p(0)}`;
    // A document another instance registered first is left as it is: the same hash is the same text.
    this.insertSql = `INSERT INTO ${table} (${hash}, ${document}, ${registeredAt}) VALUES (${p(0)}, ${p(1)}, ${p(2)}) ON CONFLICT (${hash}) DO NOTHING`;
    // Everything older than the newest `keep` (on the (registered_at, hash) index); nothing while fewer are stored.
    this.pruneSql =
      `DELETE FROM ${table} WHERE (${registeredAt}, ${hash}) <= ` +
      `(SELECT ${registeredAt}, ${hash} FROM ${table} ORDER BY ${registeredAt} DESC, ${hash} DESC LIMIT 1 OFFSET ${p(0)})`;
  }

  /** The document with this hash (lowercase hex), if one is stored. */
  async find(hash: string): Promise<string | undefined> {
    const [row] = await this.db.all<{ document: string }>(this.findSql, [hash]);
    return row?.document;
  }

  /** Stores a document under its hash; false when it was stored already. */
  async insert(hash: string, document: string, at: number): Promise<boolean> {
    const { changes } = await this.db.run(this.insertSql, [hash, document, at]);
    return changes > 0;
  }

  /** Deletes all but the `keep` most recently registered documents (the same millisecond ordered by hash). */
  async prune(keep: number): Promise<number> {
    const { changes } = await this.db.run(this.pruneSql, [keep]);
    return changes;
  }
}
