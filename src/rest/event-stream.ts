import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { CachedReadRequest, Engine, LiveValue } from '../engine/engine.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { credentialEndError } from '../auth/credential-expiry.js';
import { problemOf } from './problem.js';
import { header } from '../util/http-request.js';
import { mergeVary } from '../util/vary.js';

export const EVENT_STREAM = 'text/event-stream';

export interface EventStreamOptions {
  /** A comment line this often keeps proxies from closing a quiet stream (ms, default 15,000). */
  readonly heartbeatMs: number;
}

/**
 * The streams open now: one heartbeat timer beats them all (not one timer
 * per stream), and closing the server ends them (a stream never ends by itself).
 */
interface OpenStream {
  readonly beat: () => void;
  readonly end: () => void;
  /** The last event before the server shuts down: reconnect soon (to another instance, behind a load balancer). */
  readonly goodbye: () => void;
}

/** Sent to every live reader when the server shuts down: `retry` asks EventSource to reconnect after a second, with its Last-Event-ID. */
export const GOODBYE = `retry: 1000\nevent: goodbye\ndata: {"reason":"shutting down","reconnect":true}\n\n`;

export class OpenStreams {
  readonly #streams = new Set<OpenStream>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly heartbeatMs: number) {}

  add(stream: OpenStream): void {
    this.#streams.add(stream);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        for (const open of this.#streams) open.beat();
      }, this.heartbeatMs);
      this.#timer.unref();
    }
  }

  delete(stream: OpenStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Ends every stream with a goodbye event: the server is shutting down. */
  endAll(): void {
    for (const stream of [...this.#streams]) {
      stream.goodbye();
      stream.end();
    }
  }
}

/** Bytes a client may leave unread before its stream is ended: it is not keeping up. */
export const MAX_BUFFERED = 1024 * 1024;

/** Whether a GET asks for a live read (`Accept: text/event-stream`). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return request.method === 'GET' && header(request, 'accept')?.includes(EVENT_STREAM) === true;
}

/**
 * A GET as a live read, over Server-Sent Events (WHATWG HTML §9.2): the
 * representation now (`event: update`, `id:` its ETag, `data:` the same
 * JSON a plain GET answers), and again each time it changes. Reconnecting
 * with `Last-Event-ID` sends it only if it changed since that ETag, so a
 * client that lost the connection misses no change. When the read fails
 * later (the record was deleted, or a rule now hides it) the stream sends
 * `event: problem` with the problem document, and nothing of the data.
 *
 * The first answer goes through `readCached`, as a GET: a request that
 * would be an error (404, a bad query, too many live reads) is that error,
 * not a stream.
 */
export async function streamLiveRead(
  engine: Engine,
  request: FastifyRequest,
  reply: FastifyReply,
  read: Omit<CachedReadRequest, 'ifNoneMatch' | 'ifModifiedSince'>,
  streams: OpenStreams,
): Promise<void> {
  const lastEventId = header(request, 'last-event-id');
  const context = { ...read.context, site: { ...read.context.site, transport: 'event-stream' as const } };
  // The first answer is a GET's, charged as one; the live read starts from it.
  const first = await engine.readCached({ ...read, context, ifNoneMatch: lastEventId });
  // The stream opens once the live read is accepted (past the limits); values come a turn later at the earliest.
  const opened: { stream?: ReturnType<typeof openStream> } = {};
  const live = await engine.watch(
    {
      plans: read.plans,
      key: read.key,
      context,
      render: read.render,
      lastEtag: first.etag ?? lastEventId,
      first: first.status === 200 ? { version: first.version, etag: first.etag, body: first.body } : undefined,
    },
    (value) => {
      opened.stream?.send(value);
      if (value.kind === 'end') opened.stream?.end();
    },
  );
  let cancelExpiry = (): void => undefined;
  const stream = openStream(
    request,
    reply,
    () => {
      live.close();
      cancelExpiry();
    },
    streams,
  );
  opened.stream = stream;
  stream.head(first.policy.varyAuthorization === true);
  if (first.status === 200) stream.send({ kind: 'value', etag: first.etag, body: first.body });
  // The stream lives on its credential: when the token expires or the account is suspended, it ends with what a request with it would get.
  cancelExpiry = context.credential.onEnd((why) => {
    stream.send({ kind: 'end', error: credentialEndError(why, 'reconnect with a fresh one') });
    stream.end();
  });
}

function openStream(request: FastifyRequest, reply: FastifyReply, stop: () => void, streams: OpenStreams) {
  // Only what the stream needs is kept, not the request and reply objects: an idle stream should cost little.
  const raw = reply.raw;
  const { url, log } = request;
  let open = true;
  const write = (text: string): void => {
    if (!open) return;
    raw.write(text);
    if (raw.writableLength > MAX_BUFFERED) stream.end();
  };
  const stream: OpenStream = {
    beat: (): void => write(': heartbeat\n\n'),
    goodbye: (): void => write(GOODBYE),
    end: (): void => {
      if (!open) return;
      open = false;
      streams.delete(stream);
      stop();
      raw.end();
    },
  };
  // What earlier layers set (CORS's Access-Control-* and Vary: Origin), which a hijacked reply would not send.
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined));
  reply.hijack();
  streams.add(stream);
  request.raw.on('close', stream.end);
  raw.on('close', stream.end);
  raw.on('error', stream.end);
  // The client may have gone while the first answer was being read: its 'close' has passed already.
  if (request.raw.destroyed || raw.destroyed) queueMicrotask(stream.end);
  return {
    end: stream.end,
    head: (varyAuthorization: boolean): void => {
      raw.writeHead(200, {
        ...inherited,
        'content-type': `${EVENT_STREAM}; charset=utf-8`,
        // A stream is never stored, and a buffering proxy would hold its events back.
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        // A stream's connection is never reused: once it ends, it closes (a finished stream left open would hold the server's shutdown until the keep-alive timeout).
        connection: 'close',
        vary: mergeVary(inherited['vary'], varyAuthorization ? 'Accept, Authorization' : 'Accept') ?? 'Accept',
      });
      // A comment first, so the client sees the stream open even when there is nothing new to send.
      write(': live\n\n');
    },
    send: (value: LiveValue): void => {
      if (value.kind === 'value') {
        write(`id: ${value.etag}\nevent: update\ndata: ${oneLine(value.body)}\n\n`);
        return;
      }
      // An error that ends the stream has no ETag of its own: a client that reconnects with the last one misses nothing.
      const id = value.kind === 'error' ? `id: ${value.etag}\n` : '';
      write(`${id}event: problem\ndata: ${oneLine(JSON.stringify(problemFor(url, log, value.error)))}\n\n`);
    },
  };
}

/** JSON has no raw line breaks outside strings, and none inside them; a break would split the `data:` field. */
function oneLine(json: string): string {
  return json.includes('\n') ? json.replaceAll('\r\n', '\ndata: ').replaceAll('\n', '\ndata: ') : json;
}

/** The problem a later failure is sent as; an unknown failure is INTERNAL with an error id, its stack in the log. */
function problemFor(url: string, log: FastifyBaseLogger, error: unknown): object {
  if (isApiError(error)) return problemOf(error, url);
  const errorId = randomUUID();
  log.error({ err: error, errorId }, 'internal error in a live read');
  return problemOf(new ApiError('INTERNAL', { detail: `Something went wrong on our side; quote error id ${errorId}`, extensions: { errorId } }), url);
}
