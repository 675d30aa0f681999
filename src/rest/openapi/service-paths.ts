import { ref, type PathItem } from './openapi-types.js';

export const SERVICE_TAG = 'Service';
export const OPENAPI_PATH = '/openapi.json';

/** The routes beside the resources: the health and readiness checks and this document. */
export function servicePaths(): Record<string, PathItem> {
  const health = {
    '200': {
      description: 'The server and its database answer.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              status: { type: 'string', enum: ['ok'] },
              database: { type: 'string', description: 'Which database the server runs on (for example sqlite or postgres).' },
            },
            required: ['status', 'database'],
          },
        },
      },
    },
    '401': ref('responses', 'Unauthenticated'),
    '503': ref('responses', 'ServiceUnavailable'),
  };
  const ready = {
    '200': {
      description: 'This instance takes requests: it is not shutting down and its database answers.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { status: { type: 'string', enum: ['ready'] }, database: { type: 'string', description: 'Which database the server runs on.' } },
            required: ['status', 'database'],
          },
        },
      },
    },
    '401': ref('responses', 'Unauthenticated'),
    '503': ref('responses', 'NotReady'),
  };
  // A credential is checked on every route, this one too: a bad one is 401, a key set or database that does not answer 503.
  const document = {
    '200': {
      description: 'This OpenAPI 3.1 document.',
      headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') },
      content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
    },
    '304': ref('responses', 'NotModified'),
    '401': ref('responses', 'Unauthenticated'),
    '503': ref('responses', 'ServiceUnavailable'),
  };
  const tags = [SERVICE_TAG];
  const start = {
    '200': {
      description: 'What this server is: for a browser (Accept: text/html) a page, for anyone else JSON with the links and each type’s collection.',
      headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              description: { type: 'string' },
              links: { type: 'object', additionalProperties: { type: 'string' } },
              types: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, collection: { type: 'string' }, graphql: { type: 'object' } } } },
              account: {
                description: 'The type people sign in as (`@account`), the field they sign in with, and where; null when the schema has none.',
                oneOf: [
                  { type: 'object', properties: { type: { type: 'string' }, identifier: { type: 'string' }, signIn: { type: 'string' } }, required: ['type', 'identifier', 'signIn'] },
                  { type: 'null' },
                ],
              },
            },
            required: ['name', 'links', 'types', 'account'],
          },
        },
        'text/html': { schema: { type: 'string' } },
      },
    },
    '304': ref('responses', 'NotModified'),
    '401': ref('responses', 'Unauthenticated'),
  };
  return {
    '/': {
      get: { operationId: 'getStart', summary: 'Start here', description: 'Links to the console, the API reference, GraphiQL, this document and health, and the collections.', tags, parameters: [ref('parameters', 'If-None-Match')], responses: start },
      head: { operationId: 'headStart', summary: 'Start here, without the body', description: 'As GET /, without the body.', tags, parameters: [ref('parameters', 'If-None-Match')], responses: withoutBodies(start) },
    },
    '/healthz': {
      get: { operationId: 'getHealth', summary: 'Health check', description: 'Whether the server is up and its database answers. Not cached.', tags, responses: health },
      head: { operationId: 'headHealth', summary: 'Health check without a body', description: 'As GET /healthz, without the body.', tags, responses: withoutBodies(health) },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness check',
        description: 'Whether this instance should be sent requests: 503 NOT_READY while it shuts down or its database does not answer. For load balancers; not cached.',
        tags,
        responses: ready,
      },
      head: { operationId: 'headReadiness', summary: 'Readiness check without a body', description: 'As GET /readyz, without the body.', tags, responses: withoutBodies(ready) },
    },
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This API description',
        description: 'The OpenAPI 3.1 document of this API, generated from the schema. A browsable reference is at /docs.',
        tags,
        parameters: [ref('parameters', 'If-None-Match')],
        responses: document,
      },
      head: {
        operationId: 'headOpenApiDocument',
        summary: 'This API description, without the body',
        description: 'As GET /openapi.json, without the body.',
        tags,
        parameters: [ref('parameters', 'If-None-Match')],
        responses: withoutBodies(document),
      },
    },
  };
}

function withoutBodies<T extends Record<string, object>>(responses: T): T {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if ('$ref' in response) return [status, response];
      const { content: _content, ...rest } = response as { content?: unknown };
      return [status, rest];
    }),
  ) as T;
}
