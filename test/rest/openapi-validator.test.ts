import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi/build-openapi-document.js';
import { loadSchemaFiles } from '../../src/schema/load-schema.js';
import { createResponseValidator, type ResponseValidator } from '../support/openapi-validator.js';

const EXAMPLE = new URL('../../examples/social/schema.graphql', import.meta.url).pathname;
const JSON_TYPE = 'application/json';
const PROBLEM = 'application/problem+json';

let validator: ResponseValidator;

beforeAll(async () => {
  const loaded = await loadSchemaFiles([EXAMPLE]);
  if (!loaded.ok) throw new Error('example schema does not load');
  validator = createResponseValidator(buildOpenApiDocument(loaded.model));
});

const user = {
  id: 'u1',
  name: 'Ada',
  email: 'ada@example.com',
  username: null,
  profilePicture: '/files/abc/64',
  role: 'MEMBER',
  isVerified: false,
  interests: [],
  preferences: { any: ['json'] },
  birthday: null,
  createdAt: '2026-01-31T12:00:00.000Z',
  updatedAt: '2026-01-31T12:00:00.000Z',
};

describe('createResponseValidator', () => {
  it('accepts a record, a sparse record and an embedded relation as documented', () => {
    const headers = { etag: '"x"', 'cache-control': 'public, no-cache' };
    expect(validator.validate('GET', '/users/u1', 200, 'application/json; charset=utf-8', user, headers)).toEqual([]);
    expect(validator.validate('GET', '/users/{id}', 200, JSON_TYPE, { name: 'Ada' }, headers)).toEqual([]);
    const post = { id: 'p1', title: 'T', author: user, status: 'DRAFT', cover: null };
    expect(validator.validate('GET', '/posts/:id', 200, JSON_TYPE, post, headers)).toEqual([]);
    const withPosts = { id: 'u1', posts: [{ id: 'p1', author: 'u1' }] };
    expect(validator.validate('GET', '/users/u1?include=posts', 200, JSON_TYPE, withPosts, headers)).toEqual([]);
  });

  it('accepts the list envelope and refuses a bare array', () => {
    const headers = { etag: '"x"', 'cache-control': 'public, no-cache', link: '</users>; rel="first"' };
    const page = { data: [user], hasMore: true, nextCursor: 'abc', prevCursor: null, totalCount: 3 };
    expect(validator.validate('GET', '/users', 200, JSON_TYPE, page, headers)).toEqual([]);
    expect(validator.validate('GET', '/users/u1/followers', 200, JSON_TYPE, page, headers)).toEqual([]);
    expect(validator.validate('GET', '/users', 200, JSON_TYPE, [user], headers)).not.toEqual([]);
  });

  it('reports a wrong type, an unknown property, a bad enum value and a bad date-time', () => {
    const problems = validator.validate('GET', '/users/u1', 200, JSON_TYPE, { ...user, name: 42, nickname: 'x', role: 'KING', createdAt: 'yesterday' });
    expect(problems.join('\n')).toMatch(/\/name must be string/);
    expect(problems.join('\n')).toMatch(/additional properties \(nickname\)/);
    expect(problems.join('\n')).toMatch(/\/role must be equal to one of the allowed values/);
    expect(problems.join('\n')).toMatch(/\/createdAt must match format "date-time"/);
  });

  it('checks problem+json bodies against the registry of codes', () => {
    const problem = { type: 'urn:diglot:problem:NOT_FOUND', title: 'Not found', status: 404, code: 'NOT_FOUND', detail: 'User x does not exist' };
    expect(validator.validate('GET', '/users/x', 404, PROBLEM, problem)).toEqual([]);
    expect(validator.validate('GET', '/users/x', 404, PROBLEM, { ...problem, code: 'NO_SUCH_CODE' })).not.toEqual([]);
    expect(validator.validate('GET', '/users/x', 404, JSON_TYPE, problem)).toEqual([
      'GET /users/{id} → 404: content type "application/json" is not documented (documented: application/problem+json)',
    ]);
    const invalid = {
      type: 'urn:diglot:problem:VALIDATION_FAILED',
      title: 'Validation failed',
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ pointer: '/name', code: 'INPUT_REQUIRED_FIELD', detail: 'name is required' }],
    };
    expect(validator.validate('POST', '/users', 400, PROBLEM, invalid)).toEqual([]);
  });

  it('refuses undocumented statuses, knows the server-side ones and 405', () => {
    expect(validator.validate('GET', '/users', 404, PROBLEM, {})).toEqual(['GET /users → 404: status 404 is not documented for listUsers']);
    const internal = { type: 'urn:diglot:problem:INTERNAL', title: 'Internal error', status: 500, code: 'INTERNAL', errorId: 'e1' };
    expect(validator.validate('GET', '/users', 500, PROBLEM, internal)).toEqual([]);
    const notAllowed = { type: 'urn:diglot:problem:METHOD_NOT_ALLOWED', title: 'Method not allowed', status: 405, code: 'METHOD_NOT_ALLOWED', allow: ['GET'] };
    expect(validator.validate('POST', '/users/u1', 405, PROBLEM, notAllowed, { allow: 'GET, HEAD, PUT, PATCH, DELETE' })).toEqual([]);
    expect(validator.validate('POST', '/users/u1', 405, PROBLEM, notAllowed, {})).toEqual(['POST /users/{id} → 405: a 405 must carry Allow']);
    expect(validator.validate('POST', '/users/u1', 200, JSON_TYPE, user)).not.toEqual([]);
    expect(validator.validate('GET', '/nowhere/at/all/really', 404, PROBLEM, {})[0]).toMatch(/no path of the document matches/);
  });

  it('wants no body on HEAD, 204 and 304, and the required headers when given', () => {
    expect(validator.validate('HEAD', '/users/u1', 200, JSON_TYPE, undefined, { etag: '"x"', 'cache-control': 'public, no-cache' })).toEqual([]);
    expect(validator.validate('DELETE', '/users/u1', 204, null, undefined)).toEqual([]);
    expect(validator.validate('DELETE', '/users/u1', 204, JSON_TYPE, { id: 'u1' })).toEqual(['DELETE /users/{id} → 204: no body is documented, but one was sent']);
    expect(validator.validate('GET', '/users/u1', 304, null, '', { etag: '"x"' })).toEqual(['GET /users/{id} → 304: header Cache-Control is required but missing']);
    expect(validator.validate('POST', '/users', 201, JSON_TYPE, user, { etag: '"x"' })).toEqual(['POST /users → 201: header Location is required but missing']);
  });

  it('finds the operation of a concrete URL, preferring literal segments', () => {
    expect(validator.operationOf('PUT', '/users/u1/following/u2')).toEqual({ template: '/users/{id}/following/{targetId}', operationId: 'addToFollowingOfUser' });
    expect(validator.operationOf('GET', '/orders/o1/items?limit=2')).toEqual({ template: '/orders/{id}/items', operationId: 'listItemsOfOrder' });
    expect(validator.operationOf('GET', '/openapi.json')).toEqual({ template: '/openapi.json', operationId: 'getOpenApiDocument' });
    expect(validator.operationOf('PATCH', '/users')).toBeUndefined();
  });
});
