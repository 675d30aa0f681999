/**
 * The server's start document (`GET /` as JSON, docs/admin-api.md): its
 * name, links and, when people sign in, how. It is a few hundred bytes, so
 * the sign-in form waits on it alone; the OpenAPI document the data pages
 * need (tens of kilobytes, built on the server's first request for it) is
 * read after the form is on the screen.
 */
import { api } from './api';

export interface StartDocument {
  readonly name: string;
  /** The server's own places; `events` is the change stream, absent on a server without one. */
  readonly links: { readonly events?: string; readonly [name: string]: string | undefined };
  /** The type people sign in as, the field they sign in with and the route; null when the schema has no `@account`. */
  readonly account: { readonly type: string; readonly identifier: string; readonly signIn: string } | null;
}

export async function loadStart(): Promise<StartDocument> {
  const { body } = await api<Partial<StartDocument>>('/', { anonymous: true });
  return { name: body.name ?? 'Diglot', links: body.links ?? {}, account: body.account ?? null };
}
