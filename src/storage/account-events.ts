import type { Database, SqlRunner } from './dialect.js';

type SqlDialect = Database['sql'];
import { OUTBOX_TABLE } from './migrate/desired-schema.js';

/** What the accounts flows tell the outside world (a mail service, through a webhook): `account.password_reset_requested` and the like. */
export interface AccountEvent {
  readonly type: string;
  readonly accountTable: string;
  readonly accountId: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/**
 * Writes an accounts event to the outbox, where record changes go too: the
 * one place the accounts flows emit events, so a new event system needs
 * only this function re-pointed.
 */
export async function recordAccountEvent(runner: SqlRunner, sql: SqlDialect, event: AccountEvent): Promise<void> {
  const quote = (name: string): string => sql.quoteIdent(name);
  const placeholder = (index: number): string => sql.placeholder(index);
  const columns = ['table_name', 'op', 'record_id', 'payload', 'created_at'];
  await runner.run(
    `INSERT INTO ${quote(OUTBOX_TABLE)} (${columns.map(quote).join(', ')}) VALUES (${columns.map((_, i) => placeholder(i)).join(', ')})`,
    [event.accountTable, event.type, event.accountId, JSON.stringify(event.payload), new Date().toISOString()],
  );
}
