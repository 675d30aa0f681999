/**
 * Every example request the OpenAPI document contains, sent to the real
 * server (with the admin key, under the example's rules) and answered 2xx:
 * what an API reference's "Test Request" builds from the document
 * (parameter defaults and examples, request-body examples) must work as is.
 * The document once gave every embedded `<relation>.limit` a default that
 * the server refuses without its include: /docs's first try was a 400.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/issue-token.js';
import { HTTP_METHODS, type OpenApiDocument } from '../../src/rest/openapi/openapi-types.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'openapi-examples-admin-key-0123456789';
const JWT_SECRET = 'openapi-examples-jwt-secret-0123456789abcdef';

type Json = Record<string, unknown>;

interface ExampleRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** `#/components/parameters/X` → the object. */
function resolve(document: OpenApiDocument, value: Json): Json {
  const ref = value['$ref'];
  if (typeof ref !== 'string') return value;
  const [, , section, name] = ref.split('/');
  return (document.components as unknown as Record<string, Record<string, Json>>)[section ?? '']?.[decodeURIComponent(name ?? '')] ?? {};
}

/** A parameter's example value, as a reference page would fill it in: `example`, the first of `examples`, or the schema's default or example. */
function exampleOf(parameter: Json): unknown {
  if ('example' in parameter) return parameter['example'];
  const examples = parameter['examples'] as Record<string, { value?: unknown }> | undefined;
  const first = examples === undefined ? undefined : Object.values(examples)[0];
  if (first !== undefined) return first.value;
  const schema = (parameter['schema'] ?? {}) as Json;
  if ('default' in schema) return schema['default'];
  if ('example' in schema) return schema['example'];
  const schemaExamples = schema['examples'];
  return Array.isArray(schemaExamples) ? (schemaExamples[0] as unknown) : undefined;
}

function formValue(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

function isStreamOnly(document: OpenApiDocument, operation: Json): boolean {
  const responses = (operation['responses'] ?? {}) as Json;
  const ok = responses['200'] === undefined ? undefined : resolve(document, responses['200'] as Json);
  const types = Object.keys((ok?.['content'] ?? {}));
  return types.length > 0 && types.every((type) => type === 'text/event-stream');
}

/** Each operation as its examples spell it, with the path's ids filled in by `fill` (undefined: an id we cannot know, skipped). */
function exampleRequests(document: OpenApiDocument, fill: (path: string, name: string) => string | undefined): { requests: ExampleRequest[]; skipped: string[] } {
  const requests: ExampleRequest[] = [];
  const skipped: string[] = [];
  for (const [template, item] of Object.entries(document.paths) as [string, Json][]) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      // A stream (the change stream) answers for as long as the client listens: not a request to wait on (change-stream.test.ts covers it).
      if (isStreamOnly(document, operation)) continue;
      const parameters = [...((item['parameters'] as Json[] | undefined) ?? []), ...((operation['parameters'] as Json[] | undefined) ?? [])].map((parameter) => resolve(document, parameter));
      let path = template;
      const query = new URLSearchParams();
      let unknown = false;
      for (const parameter of parameters) {
        const name = String(parameter['name']);
        if (parameter['in'] === 'path') {
          const value = exampleOf(parameter) ?? fill(template, name);
          if (value === undefined) unknown = true;
          else path = path.replace(`{${name}}`, encodeURIComponent(formValue(value)));
        } else if (parameter['in'] === 'query') {
          const value = exampleOf(parameter);
          if (value !== undefined) query.set(name, formValue(value));
        }
      }
      const body = operation['requestBody'] === undefined ? undefined : bodyExample(resolve(document, operation['requestBody'] as Json));
      const isWrite = method !== 'get' && method !== 'head';
      // A write is an example request only if the document gives its body an example.
      if (isWrite && body === undefined) continue;
      if (unknown) {
        skipped.push(`${method.toUpperCase()} ${template}`);
        continue;
      }
      const search = query.toString();
      requests.push({ method: method.toUpperCase(), path: search === '' ? path : `${path}?${search}`, body });
    }
  }
  return { requests, skipped };
}

function bodyExample(requestBody: Json): unknown {
  for (const media of Object.values((requestBody['content'] ?? {}) as Record<string, Json>)) {
    const example = exampleOf(media);
    if (example !== undefined) return example;
  }
  return undefined;
}

describeEachDialect('the OpenAPI document\'s example requests', (ctx) => {
  let server: TestServer;
  let document: OpenApiDocument;
  const auth = { authorization: `Bearer ${ADMIN_KEY}` };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { rules: true, server: { auth: { adminKey: ADMIN_KEY, jwtSecret: JWT_SECRET } } });
    document = (await http(server.url, 'GET', '/openapi.json')).json as OpenApiDocument;
  });

  afterAll(async () => {
    await server.close();
  });

  it('are all answered 2xx by the server', async () => {
    // Ids of real records for the path templates: the first record of the collection the path starts with.
    const ids = new Map<string, string>();
    for (const type of server.model.types) {
      const list = await http(server.url, 'GET', `/${type.path}?limit=2`, { headers: auth });
      const data = list.json.data as { id: string }[];
      if (data[0] !== undefined) ids.set(type.path, data[0].id);
    }
    const fill = (template: string, name: string): string | undefined => {
      const collection = template.split('/')[1] ?? '';
      if (name === 'id') return ids.get(collection);
      return undefined;
    };
    const { requests, skipped } = exampleRequests(document, fill);
    // The caller's own record (/me) is an account's, not the admin key's: ask it as the first user.
    const member = { authorization: `Bearer ${await issueToken(JWT_SECRET, { sub: ids.get('users'), role: 'MEMBER' }, 600)}` };
    const failures: string[] = [];
    for (const request of requests) {
      const headers = request.path === '/me' || request.path.startsWith('/me?') ? member : auth;
      const response = await http(server.url, request.method, request.path, { headers, ...(request.body === undefined ? {} : { body: request.body }) });
      if (response.status < 200 || response.status > 299) failures.push(`${request.method} ${request.path}: ${response.status} ${response.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    // Every GET of every collection, record and sub-collection was tried; only routes keyed by what no seed knows (file keys, link targets,
    // the admin API's keys, endpoints and deliveries, which admin-api.test.ts walks) were not.
    expect(requests.length).toBeGreaterThanOrEqual(server.model.types.length * 2);
    expect(requests.some((request) => /^\/users\/[^/?]+\?/.test(request.path) || /^\/users\/[^/?]+$/.test(request.path))).toBe(true);
    for (const operation of skipped) expect(operation).toMatch(/\{(key|targetId|width)\}|^\w+ \/admin\//);
  });

  it('includes the defaults a reference page sends, and none the server refuses', () => {
    const users = document.paths['/users/{id}'] as unknown as Json;
    const parameters = ((users['get'] as Json)['parameters'] as Json[]).map((parameter) => resolve(document, parameter));
    const embeddedLimit = parameters.find((parameter) => parameter['name'] === 'posts.limit');
    expect(embeddedLimit).toBeDefined();
    expect(exampleOf(embeddedLimit ?? {})).toBeUndefined();
  });
});
