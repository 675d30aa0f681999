import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialEndError } from '../auth/credential-expiry.js';
import { contextOf } from '../auth/request-principal.js';
import type { Engine } from '../engine/engine.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { ChangeSubscriptions, eventCursor, type PlannedFeed } from '../events/change-subscriptions.js';
import type { EventHub, EventMessage } from '../events/event-hub.js';
import { patternMatches } from '../events/webhook-endpoints.js';
import { planReadList, type PlanLimits } from '../plan/build-read.js';
import { askerKey } from '../plan/principal.js';
import { imageReadProblem, readImage } from '../plan/read-image.js';
import type { ReadPlan } from '../plan/read-plan.js';
import { unlimitedMeter, type RequestContext } from '../plan/request-context.js';
import { RECORD_ACTIONS, recordEventType, type RecordAction } from '../schema/event-names.js';
import type { Model, ResourceType } from '../schema/model.js';
import { mergeDeprecations, type DeprecatedUse } from '../plan/deprecated-use.js';
import { markDeprecated } from './deprecation-headers.js';
import { header, searchOf } from '../util/http-request.js';
import { mergeVary } from '../util/vary.js';
import { EVENT_STREAM, GOODBYE, MAX_BUFFERED, OpenStreams } from './event-stream.js';
import { problemOf } from './problem.js';
import { parseRestQuery } from './query-params.js';
import { methodNotAllowed } from './route-helpers.js';

export interface ChangeStreamOptions {
  readonly engine: Engine;
  readonly limits: PlanLimits;
  /** The event hub (made after the routes, hence a getter). */
  readonly events: () => EventHub | undefined;
  readonly heartbeatMs: number;
}

/** One message of the stream: an event as the subscriber may read it, or the end. */
type Message = { readonly kind: 'event'; readonly position: number; readonly type: string; readonly json: string } | { readonly kind: 'end'; readonly error: unknown; readonly cursor: number };

/** `/events`, unless a type of the schema has that collection: then `/_events` (`GET /` names it either way). */
export function changeStreamPath(model: Model): string {
  return model.types.some((type) => type.path === 'events') ? '/_events' : '/events';
}

/**
 * `GET /events`: the change events as Server-Sent Events, for anyone, each
 * as the subscriber may read it (docs/admin-api.md). Each event type is a
 * change-event subscription shared with every subscriber asking the same
 * with the same view (events/change-subscriptions.ts, as GraphQL's
 * `postCreated` is): the record is rendered from the event's image with
 * the subscriber's read rules and masks (plan/read-image.ts), or re-read
 * when a rule looks through a relation; a record the subscriber may not
 * read is never sent. `?types=post.created,user.*` picks event types;
 * `Last-Event-ID` (or `?after=`) resumes after an event while it is kept.
 */
export function registerChangeStream(app: FastifyInstance, options: ChangeStreamOptions): void {
  const { engine } = options;
  const path = changeStreamPath(engine.model);
  const streams = new OpenStreams(options.heartbeatMs);
  let subscriptions: ChangeSubscriptions<Message> | undefined;
  app.addHook('preClose', (done) => {
    streams.endAll();
    done();
  });
  app.get(path, { exposeHeadRoute: false }, async (request, reply) => {
    if (header(request, 'accept')?.includes(EVENT_STREAM) !== true) {
      throw new ApiError('NOT_ACCEPTABLE', { detail: `${path} is a stream: send Accept: ${EVENT_STREAM}`, extensions: { accept: [EVENT_STREAM] } });
    }
    const base = contextOf(request);
    const context: RequestContext = { ...base, site: { ...base.site, transport: 'event-stream' } };
    const { types, after } = streamQuery(engine.model, request);
    const hub = options.events();
    if (hub === undefined) throw new ApiError('INTERNAL', { detail: 'The event hub is not running' });
    subscriptions ??= new ChangeSubscriptions<Message>(hub, engine.deprecationUsage);
    const held = engine.holdLive(context);
    const opened: AsyncIterableIterator<Message>[] = [];
    const used: (readonly DeprecatedUse[])[] = [];
    const close = (): void => {
      held.close();
      for (const iterator of opened) void iterator.return?.();
    };
    try {
      for (const asked of types) {
        const subscribed = await subscriptions.subscribe({
          key: `${asked.name} rest ${askerKey(engine.model, context.principal)}`,
          eventType: asked.eventType,
          after,
          context,
          plan: () => planFeed(options, context, asked),
          ended: (error, cursor) => ({ kind: 'end', error, cursor }),
          onEnd: () => undefined,
        });
        opened.push(subscribed.results);
        used.push(subscribed.deprecations);
      }
    } catch (error) {
      close();
      throw error;
    }
    // An old type name asked for (`@renamed`) is told as on any other route: the stream's headers carry it.
    markDeprecated(options, reply, mergeDeprecations(used));
    stream(request, reply, opened, streams, close, context);
  });
  methodNotAllowed(app, path, ['GET']);
}

/**
 * One event type asked for: the name it was asked by (`name`, sent as each
 * message's type), the name its events are published under, and the type
 * name its reads are planned with (the old one, for an old name).
 */
interface AskedType {
  readonly name: string;
  readonly eventType: string;
  readonly type: ResourceType;
  readonly typeName: string;
  readonly kind: RecordAction;
}

/**
 * The event types asked for (`?types=`, patterns as webhooks take them; every created, updated and deleted by default) and the cursor.
 * Events are published once, under a renamed type's new name; a pattern that matches only its old name (`@renamed`) asks for them under
 * the old name, so a client listening for `product.created` keeps hearing them as that.
 */
function streamQuery(model: Model, request: FastifyRequest): { types: AskedType[]; after: number | undefined } {
  const query = new URLSearchParams(searchOf(request.url));
  for (const name of query.keys()) {
    if (name !== 'types' && name !== 'after') throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `Unknown query parameter ${name}; allowed: types, after` });
  }
  const all: AskedType[] = model.types.flatMap((type) => RECORD_ACTIONS.map((kind) => ({ name: recordEventType(type.name, kind), eventType: recordEventType(type.name, kind), type, typeName: type.name, kind })));
  const old: AskedType[] = model.types.flatMap((type) =>
    type.renamedFrom === undefined ? [] : RECORD_ACTIONS.map((kind) => ({ name: recordEventType(type.renamedFrom as string, kind), eventType: recordEventType(type.name, kind), type, typeName: type.renamedFrom as string, kind })),
  );
  const patterns = (query.get('types') ?? '*').split(',').map((pattern) => pattern.trim()).filter((pattern) => pattern !== '');
  const matches = (candidate: AskedType): boolean => patterns.some((pattern) => patternMatches(pattern, candidate.name));
  const current = all.filter(matches);
  const types = [...current, ...old.filter((candidate) => matches(candidate) && !current.some((asked) => asked.eventType === candidate.eventType))];
  if (types.length === 0) throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `types=${query.get('types') ?? ''} matches no event type (such as ${all[0]?.name ?? 'post.created'}, or post.*)` });
  const after = eventCursor(header(request, 'last-event-id') ?? query.get('after') ?? undefined);
  return { types, after };
}

/** The subscriber's view of a type, planned now (rules, masks, limits): how each event of it becomes their message. */
function planFeed(options: ChangeStreamOptions, context: RequestContext, asked: AskedType): PlannedFeed<Message> {
  const { engine, limits } = options;
  const { type, typeName, kind } = asked;
  const { select } = parseRestQuery(engine.model, type, {}, true);
  // Planned by the name asked for: an old one (`@renamed`) is reported as a deprecated use, as on any other route.
  const plan = planReadList(engine.model, typeName, { first: 1 }, select, { limits, fromText: false, principal: context.principal });
  return {
    cost: engine.readCost([plan]),
    deprecations: plan.deprecations,
    renderer: () => {
      // The feed reads for all its subscribers with the first one's view, charged to nobody (each paid when subscribing).
      const shared: RequestContext = { ...context, meter: unlimitedMeter() };
      const readOne = async (related: ReadPlan): Promise<string | null> => {
        const result = await engine.read(related, shared);
        return result.kind === 'one' ? result.json : null;
      };
      const problem = imageReadProblem(plan);
      return async (event: EventMessage): Promise<Message | undefined> => {
        let json: string | undefined;
        if (problem === undefined) {
          const image = kind === 'deleted' ? event.data.previous : event.data.record;
          if (image === null || image === undefined) return undefined;
          json = firstOf((await readImage(plan, image, readOne)).json);
        } else if (kind !== 'deleted') {
          // A rule looks through a relation: the record as it is now, read with the subscriber's rules (gone since: nothing).
          const narrowed = planReadList(engine.model, typeName, { first: 1, filter: { id: { eq: event.data.id } } }, select, { limits, fromText: false, principal: context.principal });
          const result = await engine.read(narrowed, shared);
          json = result.kind === 'list' ? firstOf(result.json) : undefined;
        }
        // Not theirs to see (or a deleted record the rules can no longer judge): no message.
        if (json === undefined) return undefined;
        const member = kind === 'deleted' ? 'previous' : 'record';
        const body = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(asked.name)},"timestamp":${JSON.stringify(event.timestamp)},"data":{"id":${JSON.stringify(event.data.id)},"${member}":${json}}}`;
        return { kind: 'event', position: event.position, type: asked.name, json: body };
      };
    },
  };
}

function firstOf(list: string): string | undefined {
  const rows = JSON.parse(list) as unknown[];
  return rows.length === 0 ? undefined : JSON.stringify(rows[0]);
}

/** Opens the SSE response and pumps every subscription into it until the client goes, the server closes or the credential ends. */
function stream(request: FastifyRequest, reply: FastifyReply, iterators: readonly AsyncIterableIterator<Message>[], streams: OpenStreams, close: () => void, context: RequestContext): void {
  const raw = reply.raw;
  let open = true;
  let cancelExpiry = (): void => undefined;
  const write = (text: string): void => {
    if (!open) return;
    raw.write(text);
    // A client that does not read is let go, as a live read's is, rather than buffered without end.
    if (raw.writableLength > MAX_BUFFERED) handle.end();
  };
  const problem = (error: unknown): string => {
    const known = isApiError(error) ? error : new ApiError('INTERNAL', { detail: 'Something went wrong on our side' });
    if (!isApiError(error)) request.log.error({ err: error }, 'internal error in the change stream');
    return `event: problem\ndata: ${JSON.stringify(problemOf(known, request.url))}\n\n`;
  };
  const handle = {
    beat: (): void => write(': heartbeat\n\n'),
    goodbye: (): void => write(GOODBYE),
    end: (): void => {
      if (!open) return;
      open = false;
      streams.delete(handle);
      cancelExpiry();
      close();
      raw.end();
    },
  };
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined));
  reply.hijack();
  raw.writeHead(200, {
    ...inherited,
    'content-type': `${EVENT_STREAM}; charset=utf-8`,
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    // A stream's connection is never reused: once it ends, it closes (a finished stream left open would hold the server's shutdown until the keep-alive timeout).
    connection: 'close',
    vary: mergeVary(inherited['vary'], 'Accept, Authorization') ?? 'Accept, Authorization',
  });
  write(': events\n\n');
  streams.add(handle);
  request.raw.on('close', handle.end);
  raw.on('close', handle.end);
  raw.on('error', handle.end);
  // The client may have gone while the subscriptions were opened: its 'close' has passed already.
  if (request.raw.destroyed || raw.destroyed) queueMicrotask(handle.end);
  // Ends with the credential: an expired token, a suspended account, a revoked key.
  cancelExpiry = context.credential.onEnd((why) => {
    write(problem(credentialEndError(why, 'reconnect with a fresh one')));
    handle.end();
  });
  for (const iterator of iterators) {
    void (async () => {
      for await (const message of iterator) {
        if (message.kind === 'event') {
          write(`id: ${message.position}\nevent: ${message.type}\ndata: ${message.json}\n\n`);
        } else {
          // The cursor to resume after: nothing after it was sent by this subscription.
          write(`id: ${message.cursor}\n${problem(message.error)}`);
          handle.end();
        }
      }
    })().catch(handle.end);
  }
}
