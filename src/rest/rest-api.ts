import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CachedReadResponse, Engine, ReadResult, WritePrecondition } from '../engine/engine.js';
import { cacheHeaders } from '../engine/cache-headers.js';
import { setHeaders } from '../util/vary.js';
import { appendLink, markDeprecated } from './deprecation-headers.js';
import { strongEtag } from '../engine/validators.js';
import { ApiError } from '../errors/api-error.js';
import { planReadList, planReadOne, type PlanLimits } from '../plan/build-read.js';
import { bindParams, idParam } from '../plan/plan-template.js';
import type { ReadPlan } from '../plan/read-plan.js';
import { LruCache } from '../util/lru-cache.js';
import type { InputMode } from '../plan/validate-input.js';
import { planCreate, planDelete, planLink, planUpdate } from '../plan/build-write.js';
import type { ManyToManyRelation, ResourceType } from '../schema/model.js';
import { resolveField, typeAlias } from '../schema/renamed.js';
import { registerFileRoutes, type FileAccess, type FileServe } from './file-routes.js';
import { writeRecordBody } from './record-input.js';
import { listLinks, pageCursors, renderList, type PageCursors } from './render-list.js';
import { parseQueryString, parseRestQuery, type RestQuery } from './query-params.js';
import { methodNotAllowed } from './route-helpers.js';
import { header, searchOf } from '../util/http-request.js';
import { contextOf, principalOf } from '../auth/request-principal.js';
import { askerKey, ownAccountId } from '../plan/principal.js';
import { OpenStreams, streamLiveRead, wantsEventStream, type EventStreamOptions } from './event-stream.js';
import type { Accounts } from '../auth/accounts/accounts.js';
import { registerAccountRoutes } from './account-routes.js';

export interface RestApiOptions {
  readonly engine: Engine;
  readonly limits: PlanLimits;
  /** Refuse PUT/PATCH/DELETE without If-Match (428), for APIs that want lost updates to be impossible. */
  readonly requireIfMatch: boolean;
  /** Live reads over Server-Sent Events (a GET with `Accept: text/event-stream`). */
  readonly eventStream?: Partial<EventStreamOptions>;
  /** Sign-up, sign-in and tokens (`/auth/…`) and `GET /me`, when a type is marked `@account`. */
  readonly accounts?: Accounts | undefined;
  /** Who may fetch `/files/…` (file-routes.ts): `public` by default. */
  readonly fileAccess?: FileAccess | undefined;
  /** How originals leave a store that can presign URLs (file-routes.ts): `stream` by default. */
  readonly fileServe?: FileServe | undefined;
}

/** What a route and its query text mean, worked out once: the plan (its id slot open) and the list arguments. */
interface RequestTemplate {
  readonly plan: ReadPlan;
  readonly list: RestQuery['list'];
}

interface RestContext extends RestApiOptions {
  readonly templates: LruCache<string, RequestTemplate>;
  readonly streams: OpenStreams;
}

const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/**
 * The resource style: every type at its own URL, every list relation a
 * sub-collection. Each handler is parse → plan → engine → render; no SQL.
 */
export function registerRestApi(app: FastifyInstance, restOptions: RestApiOptions): void {
  const options: RestContext = {
    ...restOptions,
    templates: new LruCache(2000),
    streams: new OpenStreams(restOptions.eventStream?.heartbeatMs ?? 15_000),
  };
  const { engine } = options;
  // Live reads never end by themselves: end them before the server waits for its connections to close.
  app.addHook('preClose', (done) => {
    options.streams.endAll();
    done();
  });
  for (const type of engine.model.types) {
    registerResource(app, options, type);
    // A renamed type's old path keeps answering; its plans name the type by its old name, which they report as a deprecated use.
    const alias = typeAlias(type);
    if (alias !== undefined) registerResource(app, options, alias);
  }
  const accounts = options.accounts;
  if (accounts !== undefined) {
    registerAccountRoutes(app, accounts, options);
    // The caller's own record, through the same plan and rules as GET /<accounts>/<their id>.
    app.get('/me', (request, reply) => getOne(options, accounts.type, request, reply, ownAccountId(principalOf(request))));
    methodNotAllowed(app, '/me', ['GET', 'HEAD']);
  }
  registerFileRoutes(app, {
    engine,
    sendRecord: (type, id, request, reply) => sendRecord(options, type, id, request, reply),
    precondition: (type, id, request) => precondition(options, type, id, request),
    ...(options.fileAccess === undefined ? {} : { access: options.fileAccess }),
    ...(options.fileServe === undefined ? {} : { serve: options.fileServe }),
  });
}

function registerResource(app: FastifyInstance, options: RestContext, type: ResourceType): void {
  const base = `/${type.path}`;
  const item = `${base}/:id`;
  app.get(base, (request, reply) => getList(options, type, request, reply, undefined));
  app.post(base, (request, reply) => create(options, type, request, reply));
  app.get(item, (request, reply) => getOne(options, type, request, reply));
  app.put(item, (request, reply) => update(options, type, request, reply, 'replace'));
  app.patch(item, (request, reply) => update(options, type, request, reply, 'patch'));
  app.delete(item, (request, reply) => remove(options, type, request, reply));
  methodNotAllowed(app, base, ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, item, ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']);
  for (const field of type.fields) {
    if (field.kind !== 'toMany' && field.kind !== 'manyToMany') continue;
    // A renamed relation answers at its old sub-path too (`@renamed`), reported as a deprecated use by its plans.
    for (const name of field.renamedFrom === undefined ? [field.name] : [field.name, field.renamedFrom]) {
      const sub = `${item}/${name}`;
      app.get(sub, (request, reply) => getList(options, type, request, reply, name));
      methodNotAllowed(app, sub, ['GET', 'HEAD']);
      if (field.kind === 'manyToMany') {
        const member = `${sub}/:targetId`;
        app.put(member, (request, reply) => link(options, type, name, request, reply, 'connect'));
        app.delete(member, (request, reply) => link(options, type, name, request, reply, 'disconnect'));
        methodNotAllowed(app, member, ['PUT', 'DELETE']);
      }
    }
  }
}

type Params = { readonly id?: string; readonly targetId?: string };

function params(request: FastifyRequest): Params {
  return request.params as Params;
}

/**
 * The plan for a request, from the template of its route and query text: the
 * query is parsed and planned the first time; later requests only bind their
 * id (the record's, or the parent's for a sub-collection).
 */
function planFor(options: RestContext, request: FastifyRequest, key: string, id: string | undefined, build: () => RequestTemplate): RequestTemplate {
  // Under rules a template holds its asker's values (their id in a row filter): one per principal.
  const templateKey = `${askerKey(options.engine.model, principalOf(request))} ${key}`;
  let template = options.templates.get(templateKey);
  if (template === undefined) {
    template = build();
    options.templates.set(templateKey, template);
  }
  const slot = idParam(template.plan);
  if (slot === undefined || id === undefined) return template;
  return { plan: bindParams(template.plan, new Map([[slot, id]])), list: template.list };
}

function oneTemplate(options: RestContext, type: ResourceType, query: string, request: FastifyRequest): RequestTemplate {
  const parsed = parseRestQuery(options.engine.model, type, query === '' ? {} : parseQueryString(query), false);
  return { plan: planReadOne(options.engine.model, type.name, '', parsed.select, { limits: options.limits, fromText: true, principal: principalOf(request) }), list: {} };
}

async function getOne(options: RestContext, type: ResourceType, request: FastifyRequest, reply: FastifyReply, ownId?: string): Promise<void> {
  const { engine } = options;
  const id = ownId ?? params(request).id ?? '';
  const query = searchOf(request.url);
  const { plan } = planFor(options, request, `one ${type.name} ${query}`, id, () => oneTemplate(options, type, query, request));
  markDeprecated(options, reply, plan.deprecations);
  const read = {
    plans: [plan],
    key: `rest ${request.url}`,
    context: contextOf(request),
    render: ([result]: readonly ReadResult[]): string => {
      if (result?.kind !== 'one' || result.json === null) throw notFound(type, id);
      return result.json;
    },
  };
  if (wantsEventStream(request)) return streamLiveRead(engine, request, reply, read, options.streams);
  const response = await engine.readCached({ ...read, ifNoneMatch: header(request, 'if-none-match'), ifModifiedSince: header(request, 'if-modified-since') });
  send(reply, response);
}

async function getList(
  options: RestContext,
  type: ResourceType,
  request: FastifyRequest,
  reply: FastifyReply,
  relation: string | undefined,
): Promise<void> {
  const { engine } = options;
  const query = searchOf(request.url);
  const parentId = relation === undefined ? undefined : (params(request).id as string);
  const { plan, list } = planFor(options, request, `list ${type.name} ${relation ?? ''} ${query}`, parentId, () => {
    const listType = relation === undefined ? type : (engine.model.typesByName.get((resolveField(type, relation)?.field as ManyToManyRelation).target) as ResourceType);
    const parsed = parseRestQuery(engine.model, listType, query === '' ? {} : parseQueryString(query), true);
    const template = planReadList(engine.model, listType.name, parsed.list, parsed.select, {
      limits: options.limits,
      fromText: true,
      principal: principalOf(request),
      totalCount: parsed.count,
      parent: relation === undefined ? undefined : { type: type.name, field: relation, id: '' },
    });
    return { plan: template, list: parsed.list };
  });
  markDeprecated(options, reply, plan.deprecations);
  let cursors: PageCursors | undefined;
  const read = {
    plans: [plan],
    key: `rest ${request.url}`,
    context: contextOf(request),
    render: ([result]: readonly ReadResult[]): string => {
      if (result?.kind !== 'list') throw new Error('list plan gave a non-list result');
      cursors = pageCursors(plan, result, list);
      return renderList(result, cursors);
    },
  };
  if (wantsEventStream(request)) return streamLiveRead(engine, request, reply, read, options.streams);
  const response = await engine.readCached({ ...read, ifNoneMatch: header(request, 'if-none-match'), ifModifiedSince: header(request, 'if-modified-since') });
  if (response.status === 200 && cursors !== undefined) appendLink(reply, listLinks(request.url, cursors));
  send(reply, response);
}

async function create(options: RestContext, type: ResourceType, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { engine } = options;
  // JSON, or multipart/form-data with file parts (record-input.ts).
  const result = await writeRecordBody(engine, type, request, 'create', () => jsonBody(request), (values) => {
    const plan = planCreate(engine.model, type.name, values, principalOf(request));
    markDeprecated(options, reply, plan.deprecations);
    return engine.write(contextOf(request), plan, undefined, (id) => canonicalPlan(options, type, id, request));
  });
  reply.code(201).header('location', `/${type.path}/${result.id}`);
  if (result.record === undefined) await sendRecord(options, type, result.id, request, reply);
  else sendBody(reply, result.record);
}

async function update(options: RestContext, type: ResourceType, request: FastifyRequest, reply: FastifyReply, mode: InputMode): Promise<void> {
  const { engine } = options;
  const id = params(request).id as string;
  await writeRecordBody(
    engine,
    type,
    request,
    mode,
    () => jsonBody(request),
    (values) => {
      const plan = planUpdate(engine.model, type.name, id, values, principalOf(request), mode === 'replace');
      markDeprecated(options, reply, plan.deprecations);
      return engine.write(contextOf(request), plan, precondition(options, type, id, request));
    },
    () => engine.precheckWrite(contextOf(request), planUpdate(engine.model, type.name, id, {}, principalOf(request))),
  );
  await sendRecord(options, type, id, request, reply);
}

async function remove(options: RestContext, type: ResourceType, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = params(request).id as string;
  const plan = planDelete(options.engine.model, type.name, id, principalOf(request));
  markDeprecated(options, reply, plan.deprecations);
  await options.engine.write(contextOf(request), plan, precondition(options, type, id, request));
  reply.code(204).send();
}

async function link(
  options: RestApiOptions,
  type: ResourceType,
  field: string,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: 'connect' | 'disconnect',
): Promise<void> {
  const { id, targetId } = params(request) as Required<Params>;
  const plan = planLink(options.engine.model, kind, type.name, field, id, targetId, principalOf(request));
  markDeprecated(options, reply, plan.deprecations);
  await options.engine.write(contextOf(request), plan);
  reply.code(204).send();
}

/** The record's full representation, as GET /<type>/<id> would send it, with its ETag. */
async function sendRecord(options: RestContext, type: ResourceType, id: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const result = await options.engine.read(canonicalPlan(options, type, id, request), contextOf(request));
  const body = renderCanonical(result);
  if (body === undefined) throw notFound(type, id);
  sendBody(reply, body);
}

function sendBody(reply: FastifyReply, body: string): void {
  reply.header('etag', strongEtag(body)).type('application/json').send(body);
}

function canonicalPlan(options: RestContext, type: ResourceType, id: string, request: FastifyRequest): ReadPlan {
  return planFor(options, request, `one ${type.name} `, id, () => oneTemplate(options, type, '', request)).plan;
}

function renderCanonical(result: ReadResult): string | undefined {
  return result.kind === 'one' && result.json !== null ? result.json : undefined;
}

function precondition(options: RestContext, type: ResourceType, id: string, request: FastifyRequest): WritePrecondition | undefined {
  const ifMatch = header(request, 'if-match');
  const ifUnmodifiedSince = header(request, 'if-unmodified-since');
  // RFC 9110 §13.1.4: If-Unmodified-Since is ignored when If-Match is present.
  if (ifMatch === undefined && ifUnmodifiedSince !== undefined && !Number.isNaN(Date.parse(ifUnmodifiedSince))) {
    const updatedAt = type.fields.find((field) => field.kind === 'scalar' && field.auto === 'updatedAt')?.name;
    const modifiedAt =
      updatedAt === undefined ? undefined : (current: string): string | undefined => (JSON.parse(current) as Record<string, string | undefined>)[updatedAt];
    return { ifUnmodifiedSince, modifiedAt, plan: canonicalPlan(options, type, id, request), render: renderCanonical };
  }
  if (ifMatch === undefined) {
    if (options.requireIfMatch) {
      throw new ApiError('PRECONDITION_REQUIRED', { detail: 'Send If-Match with the ETag of the record you read (RFC 6585 §3)' });
    }
    return undefined;
  }
  return { ifMatch, plan: canonicalPlan(options, type, id, request), render: renderCanonical };
}

function jsonBody(request: FastifyRequest): unknown {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!JSON_TYPES.includes(contentType)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      detail: contentType === '' ? 'Send the record as application/json' : `${contentType} is not accepted here; send application/json`,
      extensions: { accept: JSON_TYPES },
    });
  }
  return request.body;
}

function send(reply: FastifyReply, response: CachedReadResponse): void {
  setHeaders(reply, cacheHeaders(response, undefined));
  if (response.status === 304) {
    reply.code(304).send();
    return;
  }
  reply.type('application/json').send(response.body);
}


function notFound(type: ResourceType, id: string): ApiError {
  return new ApiError('NOT_FOUND', { detail: `${type.name} ${id} does not exist` });
}

