/**
 * The generated OpenAPI document against the running server: every route
 * Fastify has is in the document (and the other way round), every operation
 * answers as the document says on both databases, and /docs is a
 * self-hosted reference.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi/build-openapi-document.js';
import { HTTP_METHODS, type OpenApiDocument } from '../../src/rest/openapi/openapi-types.js';
import { DEFAULT_LIMITS } from '../../src/plan/build-read.js';
import { isListRelation, isRelation, type Model, type ResourceType } from '../../src/schema/model.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { parseRoutes } from '../support/routes.js';
import { createResponseValidator, type ResponseValidator } from '../support/openapi-validator.js';
import { loadExampleModel, startServer, type TestServer } from '../support/start-server.js';

describe('GET /openapi.json and /docs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => openDatabase(':memory:'), { seed: false });
  });
  afterAll(() => server.close());

  it('serves the document built from the model, with validators for caching', async () => {
    const response = await http(server.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.json).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(server.model, { limits: DEFAULT_LIMITS, files: true }))));
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('cache-control')).toBe('public, no-cache');

    const again = await http(server.url, 'GET', '/openapi.json', { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, no-cache');
    expect((await http(server.url, 'GET', '/openapi.json', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('has every route Fastify serves, and no operation it does not serve', async () => {
    const document = (await http(server.url, 'GET', '/openapi.json')).json as OpenApiDocument;
    // Not REST operations: the reference page and the console (pages), the pages' assets, and the GraphQL endpoint, which describes itself by introspection.
    const elsewhere = ['/docs', '/console', '/graphql', '/assets'];
    const routes = parseRoutes(server.app.printRoutes({ commonPrefix: false })).filter(
      (route) => !elsewhere.some((prefix) => route.path === prefix || route.path.startsWith(`${prefix}/`)),
    );
    const served = new Set(routes.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`)));
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) => HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`)),
    );
    const missing = [...documented].filter((operation) => !served.has(operation));
    expect(missing).toEqual([]);
    // Served but not an operation: only the 405 answers of documented paths (and nothing on undocumented paths).
    const undocumented = [...served].filter((operation) => !documented.has(operation));
    for (const operation of undocumented) {
      const [method, path] = operation.split(' ') as [string, string];
      expect(document.paths[path], `${operation} is served on a path the document does not have`).toBeDefined();
      const concrete = path.replaceAll('{id}', 'x').replaceAll('{targetId}', 'y');
      const response = await http(server.url, method, concrete);
      // OPTIONS answers what the path allows (RFC 9110 §9.3.7); every other undocumented method is a 405.
      expect(response.status, `${operation} is served but not documented`).toBe(method === 'OPTIONS' ? 204 : 405);
    }
    // Every resource type has its collection and item paths.
    for (const type of server.model.types) {
      expect(document.paths[`/${type.path}`]?.get?.operationId).toBeDefined();
      expect(document.paths[`/${type.path}/{id}`]?.patch?.operationId).toBeDefined();
    }
  });

  it('serves /docs as an HTML page whose assets all come from this server', async () => {
    const redirect = await fetch(`${server.url}/docs`, { redirect: 'manual' });
    expect([200, 301, 302, 308]).toContain(redirect.status);
    // Every body is read: one left unread holds its connection, and the server's close waits for it.
    await redirect.arrayBuffer();
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/jsdelivr|unpkg|cdnjs|fonts\.googleapis|fonts\.scalar\.com/i);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);

    const assets = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((match) => match[1] as string).filter((asset) => !asset.startsWith('data:'));
    const documentUrl = /"url":\s*"([^"]+)"/.exec(html)?.[1];
    expect(assets.length).toBeGreaterThan(0);
    expect(documentUrl).toBe('/openapi.json');
    for (const asset of [...assets, documentUrl as string]) {
      const url = new URL(asset, page.url);
      expect(url.origin, asset).toBe(new URL(server.url).origin);
      const response = await fetch(url);
      expect(response.status, asset).toBe(200);
      await response.arrayBuffer();
    }
    const script = await fetch(new URL(assets.find((asset) => asset.endsWith('.js')) ?? '', page.url));
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    await script.arrayBuffer();
  });

  it('opens /docs on no scheme, the document naming the anonymous caller first, so "try it" on a public read needs no token', async () => {
    const html = await (await fetch(`${server.url}/docs/`)).text();
    expect(html).not.toContain('preferredSecurityScheme');
    const document = (await http(server.url, 'GET', '/openapi.json')).json as OpenApiDocument & { security: unknown[] };
    expect(document.security[0]).toEqual({});
    expect(document.components.securitySchemes['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    // A pasted token is not kept in the browser's storage.
    expect(html).toMatch(/"persistAuth":\s*false/);
  });
});

const ADMIN_KEY = 'openapi-http-test-admin-key-0123456789';

describeEachDialect('every REST operation answers as the OpenAPI document says', (ctx) => {
  let server: TestServer;
  let validator: ResponseValidator;
  let document: OpenApiDocument;
  const exercised = new Set<string>();

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 6, Post: 12, Product: 4, Order: 4, OrderItem: 8 }, linksPerRecord: 2 },
      server: { auth: { adminKey: ADMIN_KEY } },
    });
    document = (await http(server.url, 'GET', '/openapi.json')).json as OpenApiDocument;
    validator = createResponseValidator(document);
  });
  afterAll(() => server.close());

  /** One request whose status is `expected` and whose response the validator finds conforming. */
  async function call(
    method: string,
    path: string,
    expected: number,
    options: { readonly headers?: Record<string, string>; readonly body?: unknown; readonly raw?: string | FormData } = {},
  ): Promise<HttpResponse> {
    const response = await http(server.url, method, path, options);
    expect(response.status, `${method} ${path}: ${response.text.slice(0, 300)}`).toBe(expected);
    const parsed: unknown = response.json;
    const body = response.text === '' ? undefined : (parsed ?? response.text);
    expect(validator.validate(method, path, response.status, response.headers.get('content-type'), body, response.headers)).toEqual([]);
    const operation = validator.operationOf(method, path);
    exercised.add(operation === undefined ? `${method} 405` : operation.operationId);
    return response;
  }

  it('for every type: lists, records, sub-collections, links, writes and their errors', async () => {
    const model = server.model;
    const firstIds = new Map<string, string[]>();
    for (const type of model.types) {
      const page = await call('GET', `/${type.path}?limit=2`, 200);
      firstIds.set(type.name, (page.json as { data: { id: string }[] }).data.map((record) => record.id));
    }
    let serial = 0;
    for (const type of model.types) {
      const base = `/${type.path}`;
      const [id, otherId] = firstIds.get(type.name) ?? [];
      expect(id, `${type.name} has seeded records`).toBeDefined();
      const include = type.fields.filter(isRelation).map((field) => field.name).join(',');
      const includeParam = include === '' ? '' : `&include=${include}`;

      // Lists.
      const list = await call('GET', base, 200);
      await call('HEAD', base, 200);
      await call('GET', base, 304, { headers: { 'if-none-match': list.headers.get('etag') ?? '' } });
      await call('HEAD', base, 304, { headers: { 'if-none-match': list.headers.get('etag') ?? '' } });
      await call('GET', `${base}?count=true&limit=1&sort=-id${includeParam}`, 200);
      await call('GET', `${base}?filter[nope][eq]=1`, 400);
      await call('GET', `${base}?limit=${DEFAULT_LIMITS.maxPageSize + 1}`, 400);

      // One record.
      const record = await call('GET', `${base}/${id}`, 200);
      await call('HEAD', `${base}/${id}`, 200);
      await call('GET', `${base}/${id}`, 304, { headers: { 'if-none-match': record.headers.get('etag') ?? '' } });
      await call('GET', `${base}/${id}?fields=id${includeParam}`, 200);
      await call('GET', `${base}/${id}?fields=nmae`, 400);
      await call('GET', `${base}/missing-id`, 404);

      // Sub-collections and links.
      for (const relation of type.fields.filter(isListRelation)) {
        const sub = await call('GET', `${base}/${id}/${relation.name}`, 200);
        await call('HEAD', `${base}/${id}/${relation.name}`, 200);
        await call('GET', `${base}/${id}/${relation.name}`, 304, { headers: { 'if-none-match': sub.headers.get('etag') ?? '' } });
        await call('GET', `${base}/missing-id/${relation.name}`, 404);
        if (relation.kind === 'manyToMany') {
          const target = firstIds.get(relation.target)?.[1] ?? '';
          await call('PUT', `${base}/${id}/${relation.name}/${target}`, 204);
          await call('PUT', `${base}/${id}/${relation.name}/${target}`, 204);
          await call('DELETE', `${base}/${id}/${relation.name}/${target}`, 204);
          await call('PUT', `${base}/${id}/${relation.name}/missing-id`, 404);
          await call('GET', `${base}/${id}/${relation.name}/${target}`, 405);
        }
      }

      // Writes.
      serial += 1;
      const body = createBody(model, type, firstIds, serial);
      const created = await call('POST', base, 201, { body });
      const newId = (created.json as { id: string }).id;
      expect(created.headers.get('location')).toBe(`${base}/${newId}`);
      if (type.fields.some((field) => field.kind === 'scalar' && field.unique && Object.hasOwn(body, field.name))) {
        await call('POST', base, 409, { body });
      }
      await call('POST', base, 400, { body: { ...body, notAField: 1 } });
      await call('POST', base, 400, { body: { ...body, id: 'chosen-by-client' } });
      await call('POST', base, 415, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await call('POST', base, 400, { raw: '{"broken"', headers: { 'content-type': 'application/json' } });
      await call('POST', base, 413, { raw: JSON.stringify({ padding: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } });

      const fresh = await call('GET', `${base}/${newId}`, 200);
      await call('PATCH', `${base}/${newId}`, 200, {
        raw: '{}',
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': fresh.headers.get('etag') ?? '' },
      });
      await call('PATCH', `${base}/${newId}`, 200, { body: {} });
      await call('PUT', `${base}/${newId}`, 412, { body, headers: { 'if-match': '"stale"' } });
      await call('PUT', `${base}/${newId}`, 200, { body });
      await call('PATCH', `${base}/missing-id`, 404, { body: {} });

      // Files: uploads, multipart bodies, and the URLs records give.
      for (const field of type.fields) {
        if (field.kind !== 'file') continue;
        const picture = await tinyPng(serial);
        const formBody = createBody(model, type, firstIds, serial + 1000);
        const formCreated = await call('POST', base, 201, { raw: form(formBody, field.name, picture) });
        await call('PUT', `${base}/${(formCreated.json as { id: string }).id}`, 200, { raw: form(formBody, field.name, picture) });
        await call('POST', base, 415, { raw: form(createBody(model, type, firstIds, serial + 2000), field.name, Buffer.from('not an image')) });
        const fieldPath = `${base}/${newId}/${field.name}`;
        const uploaded = await call('PUT', fieldPath, 200, { raw: form({}, 'file', picture) });
        const url = (uploaded.json as Record<string, string>)[field.name] ?? '';
        expect(url).toMatch(/^\/files\/[0-9a-f]{64}\.png$/);
        await call('PUT', fieldPath, 415, { raw: form({}, 'file', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')) });
        await call('PUT', fieldPath, 400, { raw: form({ note: 'no file' }, undefined, undefined) });
        await call('PUT', fieldPath, 415, { body: {} });
        await call('PUT', fieldPath, 412, { raw: form({}, 'file', picture), headers: { 'if-match': '"stale"' } });
        await call('PUT', `${base}/missing-id/${field.name}`, 404, { raw: form({}, 'file', picture) });
        const original = await call('GET', url, 200);
        await call('HEAD', url, 200);
        await call('GET', url, 304, { headers: { 'if-none-match': original.headers.get('etag') ?? '' } });
        await call('HEAD', url, 304, { headers: { 'if-none-match': original.headers.get('etag') ?? '' } });
        const width = field.image.sizes[0] ?? 0;
        const variant = await call('GET', `${url}/${width}`, 200, { headers: { accept: 'image/webp,*/*' } });
        await call('HEAD', `${url}/${width}`, 200);
        await call('GET', `${url}/${width}`, 304, { headers: { accept: 'image/webp,*/*', 'if-none-match': variant.headers.get('etag') ?? '' } });
        await call('HEAD', `${url}/${width}`, 304, { headers: { accept: 'image/webp,*/*', 'if-none-match': variant.headers.get('etag') ?? '' } });
        await call('GET', `${url}/7`, 404);
        await call('HEAD', `${url}/7`, 404);
        await call('GET', `/files/${'0'.repeat(64)}.png`, 404);
        await call('HEAD', `/files/${'0'.repeat(64)}.png`, 404);
        await call('POST', url, 405, { body: {} });
        await call('DELETE', `${url}/${width}`, 405);
        await call('DELETE', fieldPath, 204);
        await call('DELETE', `${base}/missing-id/${field.name}`, 404);
        await call('GET', fieldPath, 405);
      }

      await call('DELETE', `${base}/${newId}`, 412, { headers: { 'if-match': '"stale"' } });
      await call('DELETE', `${base}/${newId}`, 204);
      await call('DELETE', `${base}/${newId}`, 404);

      // OPTIONS is answered on every path (204 with Allow; CORS preflights too, when configured).
      expect((await http(server.url, 'OPTIONS', base)).headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      // Methods a path does not have.
      await call('PUT', base, 405, { body: {} });
      await call('POST', `${base}/${otherId ?? id}`, 405, { body: {} });
    }
    await call('GET', '/healthz', 200);
    await call('HEAD', '/healthz', 200);
    await call('GET', '/readyz', 200);
    await call('HEAD', '/readyz', 200);
    await call('GET', '/openapi.json', 200);
    await call('HEAD', '/openapi.json', 200);

    // The start page, the change stream (as a stream it is test/server/change-stream.test.ts's) and the admin API.
    const start = await call('GET', '/', 200, { headers: { accept: 'application/json' } });
    await call('HEAD', '/', 200);
    await call('GET', '/', 304, { headers: { accept: 'application/json', 'if-none-match': start.headers.get('etag') ?? '' } });
    await call('GET', '/events', 406);
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    await call('GET', '/admin/api-keys', 401, { headers: { authorization: 'Bearer dk_unknown' } });
    const key = await call('POST', '/admin/api-keys', 201, { headers: admin, body: { name: 'document-key', role: 'ADMIN' } });
    await call('POST', '/admin/api-keys', 400, { headers: admin, body: { name: '' } });
    await call('GET', '/admin/api-keys', 200, { headers: admin });
    await call('GET', `/admin/api-keys/${String(key.json.id)}`, 200, { headers: admin });
    await call('DELETE', `/admin/api-keys/${String(key.json.id)}`, 200, { headers: admin });
    await call('GET', '/admin/api-keys/missing', 404, { headers: admin });
    await call('POST', '/admin/webhooks', 201, { headers: admin, body: { name: 'document-hook', url: 'http://127.0.0.1:9/', events: ['*'], paused: true } });
    await call('GET', '/admin/webhooks', 200, { headers: admin });
    await call('GET', '/admin/webhooks/document-hook', 200, { headers: admin });
    await call('PATCH', '/admin/webhooks/document-hook', 200, { headers: admin, body: { timeoutMs: 1000 } });
    await call('POST', '/admin/webhooks/document-hook/replay', 202, { headers: admin, body: { since: '2000-01-01T00:00:00Z' } });
    await call('GET', '/admin/webhooks/document-hook/deliveries?limit=2', 200, { headers: admin });
    const deliveries = await call('GET', '/admin/deliveries?status=pending', 200, { headers: admin });
    const delivery = (deliveries.json.data as { id: string }[])[0];
    await call('POST', `/admin/deliveries/${delivery?.id ?? 'missing'}/retry`, delivery === undefined ? 404 : 202, { headers: admin });
    await call('DELETE', '/admin/webhooks/document-hook', 204, { headers: admin });
    await call('GET', '/admin/schema', 200, { headers: admin });

    const operations = Object.values(document.paths).flatMap((item) => HTTP_METHODS.flatMap((method) => item[method]?.operationId ?? []));
    expect(operations.filter((operationId) => !exercised.has(operationId))).toEqual([]);
  }, 60_000);

  it('says how to authenticate, and answers a refused credential on every operation with the documented 401', async () => {
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearerAuth', 'apiKey']);
    expect(document.security).toEqual([{}, { bearerAuth: [] }, { apiKey: [] }]);
    // An unknown key is looked up in this database; a JWT where none is configured, and another scheme, are refused before.
    const refused = [`Bearer dk_${'A'.repeat(43)}`, 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln', 'Basic dXNlcjpwYXNz'];
    let count = 0;
    for (const [template, item] of Object.entries(document.paths)) {
      const path = template.replaceAll('{id}', 'some-id').replaceAll('{targetId}', 'other-id').replaceAll('{key}', `${'0'.repeat(64)}.png`).replaceAll('{width}', '64');
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (operation === undefined) continue;
        expect(operation.responses['401'], operation.operationId).toEqual({ $ref: '#/components/responses/Unauthenticated' });
        const authorization = refused[count % refused.length] ?? '';
        count += 1;
        const response = await call(method.toUpperCase(), path, 401, { headers: { authorization } });
        expect(response.headers.get('www-authenticate'), operation.operationId).toMatch(authorization.startsWith('Bearer ') ? /^Bearer error="invalid_token"/ : /^Bearer$/);
        if (method !== 'head') expect(response.json, operation.operationId).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      }
    }
    expect(count).toBeGreaterThan(30);
  });

  it('documents a 403 with the codes the rules can give, wherever the example schema\'s rules can refuse', async () => {
    // This server serves the example without its rules; the document of the example as shipped says what they can refuse.
    const document = buildOpenApiDocument(await loadExampleModel(), { limits: DEFAULT_LIMITS, files: true });
    // Private fields of a user (email): a read naming them can be refused, and every read reaches User through a relation.
    const forbidden = (template: string, method: 'get' | 'post' | 'patch' | 'delete'): string => {
      const response = document.paths[template]?.[method]?.responses['403'];
      return response !== undefined && 'description' in response ? response.description : '';
    };
    expect(forbidden('/users', 'get')).toMatch(/Codes: FIELD_FORBIDDEN\.$/);
    expect(forbidden('/posts/{id}', 'get')).toMatch(/Codes: FIELD_FORBIDDEN\.$/);
    // Anyone may sign up, but not choose their role; only the user changes or deletes themself.
    expect(forbidden('/users', 'post')).toMatch(/Codes: CROSS_SITE_REQUEST_REFUSED, FIELD_FORBIDDEN\.$/);
    expect(forbidden('/users/{id}', 'patch')).toMatch(/Codes: CROSS_SITE_REQUEST_REFUSED, FORBIDDEN, FIELD_FORBIDDEN\.$/);
    // A user's delete takes their posts along, each under the post's own delete and read rules.
    expect(forbidden('/users/{id}', 'delete')).toMatch(/Codes: CROSS_SITE_REQUEST_REFUSED, FORBIDDEN, RELATION_CASCADE_FORBIDDEN\.$/);
    expect(forbidden('/posts/{id}', 'delete')).toMatch(/Codes: CROSS_SITE_REQUEST_REFUSED, FORBIDDEN\.$/);
    // Products are written by admins alone: without a credential, never.
    expect(forbidden('/products', 'post')).toMatch(/Codes: CROSS_SITE_REQUEST_REFUSED, FORBIDDEN\.$/);
    expect(document.paths['/products']?.post?.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
    expect(document.paths['/users']?.post?.security).toBeUndefined();
  });
});

/** A valid create body: every required field, ids of seeded records for to-one relations. */
function createBody(model: Model, type: ResourceType, ids: ReadonlyMap<string, readonly string[]>, serial: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of type.fields) {
    if (field.kind === 'toOne' && !field.readonly && !field.nullable) body[field.name] = ids.get(field.target)?.[0];
    if (field.kind !== 'scalar' || field.readonly || field.optionalOnCreate) continue;
    const one = (): unknown => {
      if (field.enum !== undefined) return model.enums.get(field.enum)?.values[0];
      switch (field.scalar) {
        case 'Int':
          return serial;
        case 'Float':
          return serial + 0.5;
        case 'Boolean':
          return true;
        case 'DateTime':
          return '2026-01-31T12:00:00.000Z';
        case 'JSON':
          return { serial };
        case 'ID':
        case 'String':
          return `${field.name}-${serial}-openapi-test`;
      }
    };
    body[field.name] = field.list ? [one()] : one();
  }
  return body;
}

/** A multipart body: the record's fields as text parts (JSON parts for the rest), and one file part when given. */
function form(fields: Record<string, unknown>, fileName: string | undefined, file: Buffer | undefined): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') data.append(name, String(value));
    else data.append(name, new Blob([JSON.stringify(value)], { type: 'application/json' }));
  }
  if (fileName !== undefined && file !== undefined) data.append(fileName, new Blob([new Uint8Array(file)], { type: 'image/png' }), 'picture.png');
  return data;
}

/** A different small PNG for each serial, so each upload is a new file. */
function tinyPng(serial: number): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: { r: (serial * 37) % 256, g: 90, b: 160 } } }).png().toBuffer();
}
