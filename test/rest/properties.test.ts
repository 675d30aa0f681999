import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

type Op =
  | { kind: 'create'; email: number }
  | { kind: 'patch'; user: number; bio: string }
  | { kind: 'delete'; user: number }
  | { kind: 'follow' | 'unfollow'; user: number; other: number }
  | { kind: 'get'; user: number }
  | { kind: 'following'; user: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), email: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('patch' as const), user: fc.nat(5), bio: fc.string({ maxLength: 20 }) }),
  fc.record({ kind: fc.constant('delete' as const), user: fc.nat(5) }),
  fc.record({ kind: fc.constantFrom('follow' as const, 'unfollow' as const), user: fc.nat(5), other: fc.nat(5) }),
  fc.record({ kind: fc.constant('get' as const), user: fc.nat(5) }),
  fc.record({ kind: fc.constant('following' as const), user: fc.nat(5) }),
);

interface ModelUser {
  email: string;
  bio: string | null;
  following: Set<string>;
}

describeEachDialect('REST properties', (ctx) => {
  let server: TestServer;
  let run = 0;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 5, Post: 5, Product: 2, Order: 2, OrderItem: 2 }, linksPerRecord: 1 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('random sequences of writes and reads agree with an in-memory model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        run++;
        const users = new Map<string, ModelUser>();
        const ids: string[] = [];
        const idOf = (n: number): string => ids[n % Math.max(ids.length, 1)] ?? 'missing';
        for (const step of ops) {
          if (step.kind === 'create') {
            const email = `p${run}-${step.email}@example.org`;
            const response = await http(server.url, 'POST', '/users', { body: { name: 'P', email } });
            const taken = [...users.values()].some((user) => user.email === email);
            expect(response.status).toBe(taken ? 409 : 201);
            if (!taken) {
              ids.push(response.json.id as string);
              users.set(response.json.id as string, { email, bio: null, following: new Set() });
            }
          } else if (step.kind === 'patch') {
            const id = idOf(step.user);
            const response = await http(server.url, 'PATCH', `/users/${id}`, { body: { bio: step.bio } });
            const user = users.get(id);
            expect(response.status).toBe(user === undefined ? 404 : 200);
            if (user !== undefined) user.bio = step.bio;
          } else if (step.kind === 'delete') {
            const id = idOf(step.user);
            const response = await http(server.url, 'DELETE', `/users/${id}`);
            expect(response.status).toBe(users.has(id) ? 204 : 404);
            users.delete(id);
            for (const user of users.values()) user.following.delete(id);
          } else if (step.kind === 'follow' || step.kind === 'unfollow') {
            const [a, b] = [idOf(step.user), idOf(step.other)];
            const response = await http(server.url, step.kind === 'follow' ? 'PUT' : 'DELETE', `/users/${a}/following/${b}`);
            const exists = users.has(a) && users.has(b);
            expect(response.status).toBe(exists ? 204 : 404);
            if (exists) {
              if (step.kind === 'follow') users.get(a)?.following.add(b);
              else users.get(a)?.following.delete(b);
            }
          } else if (step.kind === 'get') {
            const id = idOf(step.user);
            const response = await http(server.url, 'GET', `/users/${id}?fields=email,bio`);
            const user = users.get(id);
            if (user === undefined) expect(response.status).toBe(404);
            else expect(response.json).toEqual({ email: user.email, bio: user.bio });
          } else {
            const id = idOf(step.user);
            const response = await http(server.url, 'GET', `/users/${id}/following?fields=id&limit=100`);
            const user = users.get(id);
            if (user === undefined) expect(response.status).toBe(404);
            else expect((response.json.data as { id: string }[]).map((u) => u.id).sort()).toEqual([...user.following].sort());
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('random malformed requests never get a 5xx', async () => {
    const segment = fc.oneof(fc.constantFrom('users', 'posts', 'orders', 'order-items', '42', '1', 'followers', 'following', 'posts', '%00', '..', ''), fc.string({ maxLength: 12 }));
    const query = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 40 }).map((text) => `?${encodeURI(text)}`),
      fc.constantFrom('?fields=', '?include=posts.author.posts', '?filter[name][in]=', '?filter[[x]]=1', '?sort=-', '?limit=-1', '?after=zz', '?filter[or]=1', '?filter[price][gt][gt]=1', '?profilePicture.size=0'),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json().map((raw) => ({ raw, type: 'application/json' })),
      fc.string({ maxLength: 60 }).map((raw) => ({ raw, type: 'application/json' })),
      fc.string({ maxLength: 30 }).map((raw) => ({ raw, type: 'text/plain' })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        query,
        body,
        async (method, segments, search, payload) => {
          const path = `/${segments.map((s) => encodeURIComponent(s)).join('/')}${search}`;
          const options = payload === undefined || method === 'GET' || method === 'HEAD' ? {} : { raw: payload.raw, headers: { 'content-type': payload.type } };
          const response = await http(server.url, method, path, options);
          expect(response.status, `${method} ${path} → ${response.text}`).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });
});
