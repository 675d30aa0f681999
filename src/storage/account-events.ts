import type { Database, SqlRunner } from './dialect.js';
import { eventInsertParams, eventInsertSql } from './outbox.js';

/** What the accounts flows tell the outside world (a mail service, through a webhook): `account.password_reset_requested` and the like. */
export interface AccountEvent {
  readonly id: string;
  readonly type: string;
  readonly accountId: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/**
 * The accounts flows' events have no record image: the payload is their
 * record, and Diglot itself wrote them (`system`, as docs/events.md lists for
 * Diglot's own writes), not the anonymous caller who asked for a reset.
 */
const SYSTEM_PRINCIPAL = JSON.stringify({ id: null, role: null, via: 'system' });

/**
 * Writes an accounts event where record changes go (the event table the
 * webhooks deliver from), so a mail service wired to `account.*` gets the
 * link to send.
 */
export async function recordAccountEvent(runner: SqlRunner, sql: Database['sql'], event: AccountEvent): Promise<void> {
  const values = {
    id: event.id,
    type: event.type,
    recordId: event.accountId,
    principal: SYSTEM_PRINCIPAL,
    record: JSON.stringify(event.payload),
    previous: null,
    target: null,
    createdAt: new Date().toISOString(),
  };
  await runner.run(eventInsertSql(sql, 0), eventInsertParams(values));
}
