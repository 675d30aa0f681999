import type { AccountType, Model, ResourceType, ScalarField } from '../schema/model.js';
import type { Database, SqlRunner, SqlValue } from './dialect.js';
import { CREDENTIALS_TABLE, ONE_TIME_TOKENS_TABLE, SESSIONS_TABLE, SIGNING_KEYS_TABLE } from './migrate/desired-schema.js';

/** What signing in and refreshing need to know of an account: never sent to a client. */
export interface AccountState {
  readonly id: string;
  /** The role field's value, when the account type has one. */
  readonly role: string | null;
  /** True when the suspension field is set (not null, not false). */
  readonly suspended: boolean;
  /** The argon2id PHC string, or null for an account made without a password (by an admin, say). */
  readonly passwordHash: string | null;
}

export interface SessionRow {
  readonly id: string;
  readonly familyId: string;
  readonly accountId: string;
  /** ms since the epoch. */
  readonly expiresAt: number;
  readonly rotatedAt: number | null;
  readonly revokedAt: number | null;
}

export interface NewSession {
  readonly id: string;
  readonly familyId: string;
  readonly accountId: string;
  /** sha256 of the refresh token, hex. */
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface SigningKeyRow {
  readonly kid: string;
  readonly secret: string;
  readonly createdAt: number;
  readonly retiredAt: number | null;
}

export type OneTimePurpose = 'password-reset' | 'verify-email';

interface RawAccount {
  readonly id: string;
  readonly role: string | null;
  readonly suspended: unknown;
  readonly password_hash: string | null;
}

interface RawSession {
  readonly id: string;
  readonly family_id: string;
  readonly account_id: string;
  readonly expires_at: number | string;
  readonly rotated_at: number | string | null;
  readonly revoked_at: number | string | null;
}

/**
 * The account tables (`_diglot_credentials`, `_diglot_sessions`,
 * `_diglot_one_time_tokens`, `_diglot_signing_keys`, made by `migrate` when
 * a type is marked `@account`) and the account's own row, read for sign-in.
 * Every lookup is one statement on a key or a unique index.
 */
export class AccountStore {
  private readonly q: (name: string) => string;
  private readonly p: (index: number) => string;
  private readonly byIdentifierSql: string;
  private readonly byIdSql: string;
  private readonly suspendedSql: string | undefined;

  constructor(
    private readonly db: Database,
    model: Model,
  ) {
    const account = model.account;
    const type = account === undefined ? undefined : model.typesByName.get(account.type);
    if (account === undefined || type === undefined) throw new Error('The model has no account type');
    this.q = (name) => db.sql.quoteIdent(name);
    this.p = (index) => db.sql.placeholder(index);
    const select = accountSelect(this.q, type, account);
    // Case-folded on both sides, as the identifier's unique index is: `Ann@x.org` signs in as `ann@x.org`, on that index.
    this.byIdentifierSql = `${select} WHERE ${db.sql.foldCase(`a.${this.q(columnOf(type, account.identifier))}`)} = ${db.sql.foldCase(this.p(0))}`;
    this.byIdSql = `${select} WHERE a.${this.q('id')} = ${this.p(0)}`;
    const suspended = account.suspended === undefined ? undefined : this.q(columnOf(type, account.suspended));
    this.suspendedSql =
      suspended === undefined ? undefined : `SELECT ${this.q('id')} AS ${this.q('id')}, ${suspended} AS ${this.q('suspended')} FROM ${this.q(type.table)} WHERE ${suspended} IS NOT NULL`;
  }

  /** The account signing in with this identifier (whatever its case, A–Z being a–z), with its password hash. */
  async findByIdentifier(identifier: string): Promise<AccountState | undefined> {
    const [row] = await this.db.all<RawAccount>(this.byIdentifierSql, [identifier]);
    return row === undefined ? undefined : stateOf(row);
  }

  async findById(id: string): Promise<AccountState | undefined> {
    const [row] = await this.db.all<RawAccount>(this.byIdSql, [id]);
    return row === undefined ? undefined : stateOf(row);
  }

  /** The ids of every suspended account (none when the type has no suspension field): one statement, at start. */
  async suspendedIds(): Promise<string[]> {
    if (this.suspendedSql === undefined) return [];
    const rows = await this.db.all<{ id: string; suspended: unknown }>(this.suspendedSql);
    return rows.filter((row) => isSet(row.suspended)).map((row) => row.id);
  }

  /** Sets the account's password hash (the first one, or a new one). */
  async setPassword(accountId: string, hash: string, now: number, runner: SqlRunner = this.db): Promise<void> {
    const { q, p } = this;
    await runner.run(
      `INSERT INTO ${q(CREDENTIALS_TABLE)} (${q('account_id')}, ${q('password_hash')}, ${q('updated_at')}) VALUES (${p(0)}, ${p(1)}, ${p(2)}) ` +
        `ON CONFLICT (${q('account_id')}) DO UPDATE SET ${q('password_hash')} = excluded.${q('password_hash')}, ${q('updated_at')} = excluded.${q('updated_at')}`,
      [accountId, hash, now],
    );
  }

  async insertSession(session: NewSession, runner: SqlRunner = this.db): Promise<void> {
    const { q, p } = this;
    const columns = ['id', 'family_id', 'account_id', 'token_hash', 'created_at', 'expires_at'];
    await runner.run(`INSERT INTO ${q(SESSIONS_TABLE)} (${columns.map(q).join(', ')}) VALUES (${columns.map((_, i) => p(i)).join(', ')})`, [
      session.id,
      session.familyId,
      session.accountId,
      session.tokenHash,
      session.createdAt,
      session.expiresAt,
    ]);
  }

  /** The session a refresh token (by hash) belongs to, rotated, revoked or not. */
  async findSession(tokenHash: string): Promise<SessionRow | undefined> {
    const { q, p } = this;
    const columns = ['id', 'family_id', 'account_id', 'expires_at', 'rotated_at', 'revoked_at'].map(q).join(', ');
    const [row] = await this.db.all<RawSession>(`SELECT ${columns} FROM ${q(SESSIONS_TABLE)} WHERE ${q('token_hash')} = ${p(0)}`, [tokenHash]);
    return row === undefined ? undefined : sessionOf(row);
  }

  /**
   * Marks the session rotated and stores its successor, in one transaction;
   * false when another request rotated or revoked it first (the caller
   * treats that as reuse).
   */
  async rotate(sessionId: string, next: NewSession): Promise<boolean> {
    const { q, p } = this;
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `UPDATE ${q(SESSIONS_TABLE)} SET ${q('rotated_at')} = ${p(0)} WHERE ${q('id')} = ${p(1)} AND ${q('rotated_at')} IS NULL AND ${q('revoked_at')} IS NULL`,
        [next.createdAt, sessionId],
      );
      if (changes !== 1) return false;
      await this.insertSession(next, tx);
      return true;
    });
  }

  /** Ends every session of a family (one sign-in and its rotations). */
  async revokeFamily(familyId: string, now: number): Promise<void> {
    const { q, p } = this;
    await this.db.run(`UPDATE ${q(SESSIONS_TABLE)} SET ${q('revoked_at')} = ${p(0)} WHERE ${q('family_id')} = ${p(1)} AND ${q('revoked_at')} IS NULL`, [now, familyId]);
  }

  /** Ends every session of an account, but for the family `keep` (the caller's own, on a password change). */
  async revokeAccountSessions(accountId: string, now: number, keep?: string, runner: SqlRunner = this.db): Promise<void> {
    const { q, p } = this;
    const except = keep === undefined ? '' : ` AND ${q('family_id')} <> ${p(2)}`;
    const params: SqlValue[] = keep === undefined ? [now, accountId] : [now, accountId, keep];
    await runner.run(`UPDATE ${q(SESSIONS_TABLE)} SET ${q('revoked_at')} = ${p(0)} WHERE ${q('account_id')} = ${p(1)} AND ${q('revoked_at')} IS NULL${except}`, params);
  }

  async insertOneTimeToken(tokenHash: string, accountId: string, purpose: OneTimePurpose, now: number, expiresAt: number): Promise<void> {
    const { q, p } = this;
    const columns = ['token_hash', 'account_id', 'purpose', 'created_at', 'expires_at'];
    await this.db.run(`INSERT INTO ${q(ONE_TIME_TOKENS_TABLE)} (${columns.map(q).join(', ')}) VALUES (${columns.map((_, i) => p(i)).join(', ')})`, [
      tokenHash,
      accountId,
      purpose,
      now,
      expiresAt,
    ]);
  }

  /** Whether a one-time token is usable now (known, of this purpose, unused, unexpired): checked before costly work, then consumed. */
  async oneTimeTokenUsable(tokenHash: string, purpose: OneTimePurpose, now: number): Promise<boolean> {
    const { q, p } = this;
    const rows = await this.db.all<{ one: number }>(
      `SELECT 1 AS ${q('one')} FROM ${q(ONE_TIME_TOKENS_TABLE)} WHERE ${q('token_hash')} = ${p(0)} AND ${q('purpose')} = ${p(1)} AND ${q('used_at')} IS NULL AND ${q('expires_at')} > ${p(2)}`,
      [tokenHash, purpose, now],
    );
    return rows.length > 0;
  }

  /**
   * Uses up a one-time token and runs `then` in the same transaction with
   * its account's id: undefined (and nothing run) when the token is unknown,
   * of another purpose, used or expired.
   */
  async consumeOneTimeToken<T>(tokenHash: string, purpose: OneTimePurpose, now: number, then: (tx: SqlRunner, accountId: string) => Promise<T>): Promise<T | undefined> {
    const { q, p } = this;
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `UPDATE ${q(ONE_TIME_TOKENS_TABLE)} SET ${q('used_at')} = ${p(0)} WHERE ${q('token_hash')} = ${p(1)} AND ${q('purpose')} = ${p(2)} AND ${q('used_at')} IS NULL AND ${q('expires_at')} > ${p(3)}`,
        [now, tokenHash, purpose, now],
      );
      if (changes !== 1) return undefined;
      const [row] = await tx.all<{ account_id: string }>(`SELECT ${q('account_id')} FROM ${q(ONE_TIME_TOKENS_TABLE)} WHERE ${q('token_hash')} = ${p(0)}`, [tokenHash]);
      if (row === undefined) return undefined;
      return then(tx, row.account_id);
    });
  }

  /** Every signing key, newest first. */
  async signingKeys(): Promise<SigningKeyRow[]> {
    const { q } = this;
    const rows = await this.db.all<{ kid: string; secret: string; created_at: number | string; retired_at: number | string | null }>(
      `SELECT ${['kid', 'secret', 'created_at', 'retired_at'].map(q).join(', ')} FROM ${q(SIGNING_KEYS_TABLE)} ORDER BY ${q('created_at')} DESC, ${q('kid')} DESC`,
    );
    return rows.map((row) => ({ kid: row.kid, secret: row.secret, createdAt: Number(row.created_at), retiredAt: row.retired_at === null ? null : Number(row.retired_at) }));
  }

  /** Adds a key and retires the others (they still verify the tokens they signed, until those expire). */
  async addSigningKey(kid: string, secret: string, now: number): Promise<void> {
    const { q, p } = this;
    await this.db.transaction(async (tx) => {
      await tx.run(`UPDATE ${q(SIGNING_KEYS_TABLE)} SET ${q('retired_at')} = ${p(0)} WHERE ${q('retired_at')} IS NULL`, [now]);
      await tx.run(`INSERT INTO ${q(SIGNING_KEYS_TABLE)} (${['kid', 'secret', 'created_at'].map(q).join(', ')}) VALUES (${p(0)}, ${p(1)}, ${p(2)})`, [kid, secret, now]);
    });
  }

  /** Whether the account tables exist: `migrate` (or `serve`) has run since the type was marked `@account`. */
  async ready(): Promise<boolean> {
    const schema = await this.db.schema.introspect(this.db);
    return schema.tables.has(SIGNING_KEYS_TABLE);
  }
}

function accountSelect(q: (name: string) => string, type: ResourceType, account: AccountType): string {
  const role = account.role === undefined ? 'NULL' : `a.${q(columnOf(type, account.role))}`;
  const suspended = account.suspended === undefined ? 'NULL' : `a.${q(columnOf(type, account.suspended))}`;
  return (
    `SELECT a.${q('id')} AS ${q('id')}, ${role} AS ${q('role')}, ${suspended} AS ${q('suspended')}, c.${q('password_hash')} AS ${q('password_hash')} ` +
    `FROM ${q(type.table)} a LEFT JOIN ${q(CREDENTIALS_TABLE)} c ON c.${q('account_id')} = a.${q('id')}`
  );
}

function columnOf(type: ResourceType, field: string): string {
  // The schema loader checked that the account's fields are stored scalars.
  return (type.fieldsByName.get(field) as ScalarField).column;
}

function stateOf(row: RawAccount): AccountState {
  return { id: row.id, role: row.role, suspended: isSet(row.suspended), passwordHash: row.password_hash };
}

/** A suspension field's stored value means "suspended": not null, not false (SQLite stores booleans as 0 and 1). */
export function isSet(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== 0 && value !== '0';
}

function sessionOf(row: RawSession): SessionRow {
  const ms = (value: number | string | null): number | null => (value === null ? null : Number(value));
  return {
    id: row.id,
    familyId: row.family_id,
    accountId: row.account_id,
    expiresAt: Number(row.expires_at),
    rotatedAt: ms(row.rotated_at),
    revokedAt: ms(row.revoked_at),
  };
}
