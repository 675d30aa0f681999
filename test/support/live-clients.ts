/**
 * Real clients for live reads: the `eventsource` package (the WHATWG
 * EventSource) for REST, and the `graphql-ws` and `graphql-sse` clients for
 * GraphQL subscriptions. Each collects what it receives in a queue that a
 * test takes from in order (`next()` waits for the next one).
 */
import { EventSource } from 'eventsource';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';

export class Queue<T> {
  readonly received: T[] = [];
  private taken = 0;
  private waiting: (() => void) | undefined;

  push(value: T): void {
    this.received.push(value);
    this.waiting?.();
    this.waiting = undefined;
  }

  /** The next value not yet taken, when it arrives. */
  async next(): Promise<T> {
    while (this.taken >= this.received.length) await new Promise<void>((resolve) => (this.waiting = resolve));
    return this.received[this.taken++] as T;
  }

  /** How many values are not taken yet. */
  get waitingCount(): number {
    return this.received.length - this.taken;
  }
}

export interface SseEvent {
  readonly type: string;
  readonly id: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: assertions check the shape
  readonly data: any;
}

export interface LiveSse {
  readonly events: Queue<SseEvent>;
  /** Resolves when the stream is open (after the response head). */
  readonly opened: Promise<void>;
  readonly source: EventSource;
  close(): void;
}

/**
 * An EventSource on `url`, sending `headers` (EventSource itself cannot: the package takes a fetch for that);
 * `answered` sees each response, for tests that check its headers.
 */
export function openEventSource(url: string, headers: Record<string, string> = {}, names: readonly string[] = [], answered?: (response: Promise<Response>) => Promise<void>): LiveSse {
  const events = new Queue<SseEvent>();
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const response = fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
      await answered?.(response);
      return response;
    },
  });
  const take = (type: string) => (event: MessageEvent) => events.push({ type, id: event.lastEventId, data: JSON.parse(String(event.data)) });
  source.addEventListener('update', take('update'));
  source.addEventListener('problem', take('problem'));
  // A server shutting down says so last (src/rest/event-stream.ts), and EventSource reconnects.
  source.addEventListener('goodbye', take('goodbye'));
  // The change stream names each message by its event type (`post.created`).
  for (const name of names) source.addEventListener(name, take(name));
  const opened = new Promise<void>((resolve, reject) => {
    source.addEventListener('open', () => resolve());
    source.addEventListener('error', (error) => reject(new Error(`EventSource failed: ${String((error as { message?: string }).message)}`)));
  });
  // A test that never waits for it must not see an unhandled rejection.
  opened.catch(() => undefined);
  return { events, opened, source, close: () => source.close() };
}

export interface LiveSubscription {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience
  readonly results: Queue<any>;
  /** Resolves when the server completes or errors the operation. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience
  readonly ended: Promise<{ readonly error?: any }>;
  close(): void;
}

export interface LiveGraphqlClient {
  subscribe(query: string, variables?: Record<string, unknown>): LiveSubscription;
  dispose(): Promise<void>;
}

type Sink = { next(value: unknown): void; error(error: unknown): void; complete(): void };
type Subscribe = (payload: { query: string; variables?: Record<string, unknown> }, sink: Sink) => () => void;

function subscriber(subscribe: Subscribe): LiveGraphqlClient['subscribe'] {
  return (query, variables) => {
    const results = new Queue<unknown>();
    let end: (value: { error?: unknown }) => void = () => undefined;
    const ended = new Promise<{ error?: unknown }>((resolve) => (end = resolve));
    const stop = subscribe(
      { query, ...(variables === undefined ? {} : { variables }) },
      { next: (value) => results.push(value), error: (error) => end({ error }), complete: () => end({}) },
    );
    return { results, ended, close: stop };
  };
}

/**
 * A graphql-ws client over `ws`, sending `authorization` in connection_init as a browser would;
 * `localAddress` connects from another loopback address (Linux routes all of 127/8 to loopback).
 */
export function graphqlWsClient(baseUrl: string, authorization?: string, upgradeHeaders?: Record<string, string>, localAddress?: string): LiveGraphqlClient {
  const client = createWsClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    // Headers on the upgrade request itself (a proxy's X-Forwarded-For), which a browser's WebSocket cannot send.
    webSocketImpl:
      upgradeHeaders === undefined && localAddress === undefined
        ? WebSocket
        : class extends WebSocket {
            constructor(address: string, protocols?: string | string[]) {
              super(address, protocols, { headers: upgradeHeaders ?? {}, ...(localAddress === undefined ? {} : { localAddress }) });
            }
          },
    connectionParams: authorization === undefined ? {} : { Authorization: authorization },
    retryAttempts: 0,
    lazy: true,
  });
  return { subscribe: subscriber((payload, sink) => client.subscribe(payload, sink)), dispose: () => client.dispose() as Promise<void> };
}

/** A graphql-sse client (distinct connections) on /graphql/stream, from `localAddress` when given. */
export function graphqlSseClient(baseUrl: string, authorization?: string, localAddress?: string): LiveGraphqlClient {
  const dispatcher = localAddress === undefined ? undefined : new Agent({ localAddress });
  const client = createSseClient({
    url: `${baseUrl}/graphql/stream`,
    headers: authorization === undefined ? {} : { authorization },
    retryAttempts: 0,
    ...(dispatcher === undefined ? {} : { fetchFn: (input: string, init?: object) => undiciFetch(input, { ...init, dispatcher }) }),
  });
  return {
    subscribe: subscriber((payload, sink) => client.subscribe(payload, sink)),
    dispose: () => {
      client.dispose();
      return Promise.resolve();
    },
  };
}
