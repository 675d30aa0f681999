import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossSiteGuard, isFormLikeWrite, normaliseOrigin } from './cross-site-guard.js';
import { installErrorHandling } from './error-handler.js';

describe('isFormLikeWrite', () => {
  it.each([
    ['POST', 'multipart/form-data; boundary=x', true],
    ['POST', 'application/x-www-form-urlencoded', true],
    ['PUT', 'Text/Plain ;charset=utf-8', true],
    ['DELETE', undefined, true],
    ['POST', '', true],
    ['POST', 'application/json', false],
    ['PATCH', 'application/merge-patch+json', false],
    ['GET', 'text/plain', false],
    ['HEAD', undefined, false],
    ['OPTIONS', 'multipart/form-data', false],
  ])('%s %s → %s', (method, type, expected) => {
    expect(isFormLikeWrite(method, type)).toBe(expected);
  });
});

describe('normaliseOrigin', () => {
  it('gives the serialisation browsers send in Origin', () => {
    expect(normaliseOrigin('https://App.Example.com')).toBe('https://app.example.com');
    expect(normaliseOrigin('https://app.example.com:443/')).toBe('https://app.example.com');
    expect(normaliseOrigin('http://localhost:5173')).toBe('http://localhost:5173');
  });

  it.each(['app.example.com', 'https://app.example.com/path', 'https://app.example.com?q', 'null', 'file:///tmp/x'])('refuses %s', (text) => {
    expect(() => normaliseOrigin(text)).toThrow(/is not an origin/);
  });
});

describe('crossSiteGuard', () => {
  let app: FastifyInstance;
  let writes = 0;

  beforeAll(async () => {
    app = Fastify({ logger: false });
    installErrorHandling(app, { exposeInternals: false });
    app.addHook('onRequest', crossSiteGuard(['https://app.example.com']));
    app.addContentTypeParser(['multipart/form-data', 'application/x-www-form-urlencoded'], { parseAs: 'string' }, (_request, body, done) => {
      done(null, body);
    });
    app.post('/things', (_request, reply) => {
      writes += 1;
      void reply.code(201).send({ ok: true });
    });
    app.get('/things', (_request, reply) => {
      void reply.send({ ok: true });
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (headers: Record<string, string>, contentType = 'application/x-www-form-urlencoded') =>
    app.inject({ method: 'POST', url: '/things', headers: { host: 'api.example.com', 'content-type': contentType, ...headers }, payload: 'a=1' });

  it.each<[string, Record<string, string>]>([
    ['no Origin, no Sec-Fetch-Site (curl)', {}],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: 'http://api.example.com' }],
    ['Sec-Fetch-Site: none', { 'sec-fetch-site': 'none' }],
    ['Origin equal to its own, no Sec-Fetch-Site (older browsers)', { origin: 'http://api.example.com' }],
    ['an allowed Origin', { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' }],
    ['a preflight header', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'graphql-require-preflight': '1' }],
    ['Apollo-Require-Preflight', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'apollo-require-preflight': 'true' }],
  ])('lets through %s', async (_name, headers) => {
    const before = writes;
    const response = await post(headers);
    expect(response.statusCode).toBe(201);
    expect(writes).toBe(before + 1);
  });

  it.each<[string, Record<string, string>]>([
    ['a cross-site page', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
    ['a sibling subdomain', { origin: 'https://www.example.com', 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site without Origin', { 'sec-fetch-site': 'cross-site' }],
    ['another Origin without Sec-Fetch-Site (older browsers)', { origin: 'https://evil.example' }],
    ['Origin: null (a sandboxed frame, a redirect)', { origin: 'null' }],
    ['same host, other scheme', { origin: 'https://api.example.com' }],
    ['a blank preflight header', { origin: 'https://evil.example', 'graphql-require-preflight': ' ' }],
  ])('refuses %s with 403 CROSS_SITE_REQUEST_REFUSED, before the handler', async (_name, headers) => {
    const before = writes;
    for (const contentType of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=b', 'text/plain']) {
      const response = await post(headers, contentType);
      expect(response.statusCode, contentType).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status: 403, code: 'CROSS_SITE_REQUEST_REFUSED', type: 'urn:diglot:problem:CROSS_SITE_REQUEST_REFUSED' });
    }
    expect(writes).toBe(before);
  });

  it('leaves JSON writes and reads alone: a browser preflights the one and the other changes nothing', async () => {
    const cross = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const json = await app.inject({ method: 'POST', url: '/things', headers: { ...cross, 'content-type': 'application/json' }, payload: '{}' });
    expect(json.statusCode).toBe(201);
    expect((await app.inject({ method: 'GET', url: '/things', headers: cross })).statusCode).toBe(200);
  });

  it('refuses a cross-site write with no body type (fetch with no body needs no preflight)', async () => {
    const response = await app.inject({ method: 'POST', url: '/things', headers: { host: 'api.example.com', origin: 'https://evil.example' } });
    expect(response.statusCode).toBe(403);
  });
});
