import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CachedReadResponse, Engine, ReadResult, WritePrecondition } from '../engine/engine.js';
import { cacheControlHeader } from '../engine/cache-policy.js';
import { strongEtag } from '../engine/validators.js';
import { ApiError } from '../errors/api-error.js';
import { planReadList, planReadOne, type PlanLimits } from '../plan/build-read.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { InputMode } from '../plan/validate-input.js';
import type { WritePlan } from '../plan/write-plan.js';
import type { ManyToManyRelation, ResourceType } from '../schema/model.js';
import { registerFileRoutes } from './file-routes.js';
import { writeRecordBody } from './record-input.js';
import { listLinks, renderList } from './render-list.js';
import { parseQueryString, parseRestQuery } from './query-params.js';

export interface RestApiOptions {
  readonly engine: Engine;
  readonly limits: PlanLimits;
  /** Refuse PUT/PATCH/DELETE without If-Match (428), for APIs that want lost updates to be impossible. */
  readonly requireIfMatch: boolean;
}

const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/**
 * The resource style: every type at its own URL, every list relation a
 * sub-collection. Each handler is parse → plan → engine → render; no SQL.
 */
export function registerRestApi(app: FastifyInstance, options: RestApiOptions): void {
  const { engine } = options;
  for (const type of engine.model.types) {
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
      const sub = `${item}/${field.name}`;
      app.get(sub, (request, reply) => getList(options, type, request, reply, field.name));
      methodNotAllowed(app, sub, ['GET', 'HEAD']);
      if (field.kind === 'manyToMany') {
        const member = `${sub}/:targetId`;
        app.put(member, (request, reply) => link(options, type, field, request, reply, 'connect'));
        app.delete(member, (request, reply) => link(options, type, field, request, reply, 'disconnect'));
        methodNotAllowed(app, member, ['PUT', 'DELETE']);
      }
    }
  }
  registerFileRoutes(app, {
    engine,
    sendRecord: (type, id, reply) => sendRecord(options, type, id, reply),
    precondition: (type, id, request) => precondition(options, type, id, request),
  });
}

type Params = { readonly id?: string; readonly targetId?: string };

function params(request: FastifyRequest): Params {
  return request.params as Params;
}

function query(request: FastifyRequest): Record<string, unknown> {
  const at = request.url.indexOf('?');
  return at < 0 ? {} : parseQueryString(request.url.slice(at + 1));
}

async function getOne(options: RestApiOptions, type: ResourceType, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { engine } = options;
  const id = params(request).id as string;
  const parsed = parseRestQuery(engine.model, type, query(request), false);
  const plan = planReadOne(engine.model, type.name, id, parsed.select, { limits: options.limits, fromText: true });
  const response = await engine.readCached({
    plans: [plan],
    key: `rest ${request.url}`,
    ifNoneMatch: header(request, 'if-none-match'),
    ifModifiedSince: header(request, 'if-modified-since'),
    render: ([result]) => {
      if (result?.kind !== 'one' || result.json === null) throw notFound(type, id);
      return result.json;
    },
  });
  send(reply, response);
}

async function getList(
  options: RestApiOptions,
  type: ResourceType,
  request: FastifyRequest,
  reply: FastifyReply,
  relation: string | undefined,
): Promise<void> {
  const { engine } = options;
  const raw = query(request);
  const listType = relation === undefined ? type : (engine.model.typesByName.get((type.fieldsByName.get(relation) as ManyToManyRelation).target) as ResourceType);
  const parsed = parseRestQuery(engine.model, listType, raw, true);
  const plan = planReadList(engine.model, listType.name, parsed.list, parsed.select, {
    limits: options.limits,
    fromText: true,
    totalCount: parsed.count,
    parent: relation === undefined ? undefined : { type: type.name, field: relation, id: params(request).id as string },
  });
  let page: ReadResult | undefined;
  const response = await engine.readCached({
    plans: [plan],
    key: `rest ${request.url}`,
    ifNoneMatch: header(request, 'if-none-match'),
    ifModifiedSince: header(request, 'if-modified-since'),
    render: ([result]) => {
      if (result?.kind !== 'list') throw new Error('list plan gave a non-list result');
      page = result;
      return renderList(plan, result, parsed.list);
    },
  });
  if (response.status === 200 && page?.kind === 'list') {
    const links = listLinks(request.url, plan, page, parsed.list);
    if (links !== undefined) reply.header('link', links);
  }
  send(reply, response);
}

async function create(options: RestApiOptions, type: ResourceType, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { engine } = options;
  // JSON, or multipart/form-data with file parts (record-input.ts).
  const result = await writeRecordBody(engine, type, request, 'create', () => jsonBody(request), (values) =>
    engine.write({ kind: 'create', type: type.name, values }),
  );
  await sendRecord(options, type, result.id, reply.code(201).header('location', `/${type.path}/${result.id}`));
}

async function update(options: RestApiOptions, type: ResourceType, request: FastifyRequest, reply: FastifyReply, mode: InputMode): Promise<void> {
  const { engine } = options;
  const id = params(request).id as string;
  await writeRecordBody(engine, type, request, mode, () => jsonBody(request), (values) => {
    const plan: WritePlan = { kind: 'update', type: type.name, id, values, replace: mode === 'replace' };
    return engine.write(plan, precondition(options, type, id, request));
  });
  await sendRecord(options, type, id, reply);
}

async function remove(options: RestApiOptions, type: ResourceType, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = params(request).id as string;
  await options.engine.write({ kind: 'delete', type: type.name, id }, precondition(options, type, id, request));
  reply.code(204).send();
}

async function link(
  options: RestApiOptions,
  type: ResourceType,
  field: ManyToManyRelation,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: 'connect' | 'disconnect',
): Promise<void> {
  const { id, targetId } = params(request) as Required<Params>;
  await options.engine.write({ kind, type: type.name, field: field.name, id, targetId });
  reply.code(204).send();
}

/** The record's full representation, as GET /<type>/<id> would send it, with its ETag. */
async function sendRecord(options: RestApiOptions, type: ResourceType, id: string, reply: FastifyReply): Promise<void> {
  const result = await options.engine.read(canonicalPlan(options, type, id));
  const body = renderCanonical(result);
  if (body === undefined) throw notFound(type, id);
  reply.header('etag', strongEtag(body)).type('application/json').send(body);
}

function canonicalPlan(options: RestApiOptions, type: ResourceType, id: string): ReadPlan {
  const { select } = parseRestQuery(options.engine.model, type, {}, false);
  return planReadOne(options.engine.model, type.name, id, select, { limits: options.limits, fromText: true });
}

function renderCanonical(result: ReadResult): string | undefined {
  return result.kind === 'one' && result.json !== null ? result.json : undefined;
}

function precondition(options: RestApiOptions, type: ResourceType, id: string, request: FastifyRequest): WritePrecondition | undefined {
  const ifMatch = header(request, 'if-match');
  const ifUnmodifiedSince = header(request, 'if-unmodified-since');
  // RFC 9110 §13.1.4: If-Unmodified-Since is ignored when If-Match is present.
  if (ifMatch === undefined && ifUnmodifiedSince !== undefined && !Number.isNaN(Date.parse(ifUnmodifiedSince))) {
    const updatedAt = type.fields.find((field) => field.kind === 'scalar' && field.auto === 'updatedAt')?.name;
    const modifiedAt =
      updatedAt === undefined ? undefined : (current: string): string | undefined => (JSON.parse(current) as Record<string, string | undefined>)[updatedAt];
    return { ifUnmodifiedSince, modifiedAt, plan: canonicalPlan(options, type, id), render: renderCanonical };
  }
  if (ifMatch === undefined) {
    if (options.requireIfMatch) {
      throw new ApiError('PRECONDITION_REQUIRED', { detail: 'Send If-Match with the ETag of the record you read (RFC 6585 §3)' });
    }
    return undefined;
  }
  return { ifMatch, plan: canonicalPlan(options, type, id), render: renderCanonical };
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
  reply.header('cache-control', cacheControlHeader(response.policy));
  if (response.etag !== undefined) reply.header('etag', response.etag);
  if (response.lastModified !== undefined) reply.header('last-modified', response.lastModified);
  if (response.status === 304) {
    reply.code(304).send();
    return;
  }
  reply.type('application/json').send(response.body);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function notFound(type: ResourceType, id: string): ApiError {
  return new ApiError('NOT_FOUND', { detail: `${type.name} ${id} does not exist` });
}

function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).filter((method) => !allowed.includes(method));
  app.route({
    method: others,
    url,
    handler: () => {
      throw new ApiError('METHOD_NOT_ALLOWED', { detail: `Allowed here: ${allowed.join(', ')}`, extensions: { allow: allowed } });
    },
  });
}
