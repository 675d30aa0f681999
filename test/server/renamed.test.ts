import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi/build-openapi-document.js';
import { eventsOf } from '../../src/server/create-server.js';
import { readDeprecationUses } from '../../src/storage/deprecation-uses.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { gql } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlWsClient, openEventSource, type LiveGraphqlClient, type LiveSse, type LiveSubscription } from '../support/live-clients.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { png } from '../support/images.js';
import { modelOf } from '../support/model-of.js';
import { putFile } from '../support/uploads.js';
import { EXAMPLE_SCHEMA, openExampleSdl, startServer, type TestServer } from '../support/start-server.js';

/**
 * The walk a user takes: rename a field (and a type, and a many-to-many
 * relation) in the example schema with @renamed, restart, and find every
 * row kept and old clients answered under the old names, in both styles.
 */
const BEFORE = openExampleSdl();

function renamed(sdl: string): string {
  const once = (text: string, from: string, to: string): string => {
    expect(text.split(from)).toHaveLength(2);
    return text.replace(from, to);
  };
  let text = once(sdl, '  title: String!\n', '  headline: String! @renamed(from: "title")\n');
  text = once(text, '  followers: [User!]!', '  fans: [User!]! @renamed(from: "followers")');
  text = text.replaceAll(/\bProduct\b/g, 'Item');
  return once(text, 'type Item ', 'type Item @renamed(from: "Product") ');
}
const AFTER = renamed(BEFORE);
const ADMIN_KEY = 'renamed-test-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** `GET /events` through EventSource, listening for `names`, with the headers of its response kept to be checked. */
async function openChangeStream(url: string, query: string, names: readonly string[], headers: Record<string, string> = {}): Promise<LiveSse & { readonly headers: Headers }> {
  let answered: Headers | undefined;
  const source = openEventSource(`${url}/events?${query}`, headers, names, async (response) => {
    answered = (await response).headers;
  });
  await source.opened;
  if (answered === undefined) throw new Error('no response');
  return { ...source, headers: answered };
}

describeEachDialect('@renamed in the example: restart, no data lost, old clients answered', (ctx) => {
  let server: TestServer;
  let post: { id: string; title: string };
  let product: { id: string; name: string };
  let follower: { user: string; followers: string[] };

  beforeAll(async () => {
    await ctx.reset();
    const before = await startServer(() => ctx.open(), { model: modelOf(BEFORE, EXAMPLE_SCHEMA), files: false });
    const posts = await http(before.url, 'GET', '/posts?fields=id,title&limit=1');
    post = posts.json.data[0];
    const products = await http(before.url, 'GET', '/products?fields=id,name&limit=1');
    product = products.json.data[0];
    const users = await http(before.url, 'GET', '/users?fields=id&include=followers&limit=20');
    const withFollowers = users.json.data.find((user: { followers: unknown[] }) => user.followers.length > 0);
    follower = { user: withFollowers.id, followers: withFollowers.followers.map((f: { id: string }) => f.id) };
    await before.close();
    // The restart: serve and start migrate without --allow-destructive, as this does.
    server = await startServer(() => ctx.open(), { model: modelOf(AFTER, EXAMPLE_SCHEMA), seed: false, server: { auth: { adminKey: ADMIN_KEY }, events: { pollMs: 200 } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('keeps every value under the new names', async () => {
    const one = await http(server.url, 'GET', `/posts/${post.id}?fields=headline`);
    expect(one.json).toEqual({ headline: post.title });
    const item = await http(server.url, 'GET', `/items/${product.id}?fields=name`);
    expect(item.json).toEqual({ name: product.name });
    const fans = await http(server.url, 'GET', `/users/${follower.user}/fans?fields=id&limit=100`);
    expect(fans.json.data.map((f: { id: string }) => f.id).sort()).toEqual([...follower.followers].sort());
  });

  it('finds nothing to migrate on the next start', async () => {
    expect((await migrate(server.db, server.model)).steps).toEqual([]);
  });

  describe('REST', () => {
    it('returns the old name beside the new by default, and alone when asked for', async () => {
      const full = await http(server.url, 'GET', `/posts/${post.id}`);
      expect(full.status).toBe(200);
      expect(full.json.headline).toBe(post.title);
      expect(full.json.title).toBe(post.title);
      const old = await http(server.url, 'GET', `/posts/${post.id}?fields=title`);
      expect(old.json).toEqual({ title: post.title });
    });

    it('tells an old client it used a deprecated name (Deprecation header), and one that names only new fields nothing', async () => {
      const full = await http(server.url, 'GET', `/posts/${post.id}`);
      expect(full.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(full.headers.get('link')).toContain('Post.title');
      const old = await http(server.url, 'GET', `/products/${product.id}?fields=id`);
      expect(old.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(old.headers.get('link')).toContain('#Product');
      const current = await http(server.url, 'GET', `/posts/${post.id}?fields=id,headline`);
      expect(current.status).toBe(200);
      expect(current.headers.get('deprecation')).toBeNull();
    });

    it('filters and sorts by the old name', async () => {
      const filtered = await http(server.url, 'GET', `/posts?fields=id&filter[title]=${encodeURIComponent(post.title)}&sort=title&limit=100`);
      expect(filtered.status).toBe(200);
      expect(filtered.json.data.map((p: { id: string }) => p.id)).toContain(post.id);
      const byNew = await http(server.url, 'GET', `/posts?fields=id&filter[headline]=${encodeURIComponent(post.title)}&sort=headline&limit=100`);
      expect(filtered.json.data).toEqual(byNew.json.data);
    });

    it('takes input under either name, and refuses both with different values, pointing at the old one', async () => {
      const patched = await http(server.url, 'PATCH', `/posts/${post.id}`, { body: { title: 'Renamed and kept' } });
      expect(patched.status).toBe(200);
      expect(patched.json.headline).toBe('Renamed and kept');
      const same = await http(server.url, 'PATCH', `/posts/${post.id}`, { body: { title: 'Same', headline: 'Same' } });
      expect(same.status).toBe(200);
      const both = await http(server.url, 'PATCH', `/posts/${post.id}`, { body: { title: 'One', headline: 'Other' } });
      expect(both.status).toBe(400);
      expect(both.json.code).toBe('INPUT_RENAMED_FIELD_CONFLICT');
      expect(both.json.errors).toEqual([expect.objectContaining({ pointer: '/title', code: 'INPUT_RENAMED_FIELD_CONFLICT' })]);
      const after = await http(server.url, 'GET', `/posts/${post.id}?fields=headline`);
      expect(after.json.headline).toBe('Same');
    });

    it('answers at the old paths of a renamed type and relation', async () => {
      const old = await http(server.url, 'GET', `/products/${product.id}?fields=id,name`);
      expect(old.status).toBe(200);
      expect(old.json).toEqual({ id: product.id, name: product.name });
      const list = await http(server.url, 'GET', '/products?fields=id&limit=100');
      expect(list.json.data).toContainEqual({ id: product.id });
      const followers = await http(server.url, 'GET', `/users/${follower.user}/followers?fields=id&limit=100`);
      expect(followers.status).toBe(200);
      expect(followers.json.data.map((f: { id: string }) => f.id).sort()).toEqual([...follower.followers].sort());
    });

    it('marks the old name deprecated in the OpenAPI document', () => {
      const post = buildOpenApiDocument(server.model).components.schemas['Post'] as { properties: Record<string, { deprecated?: boolean }> } | undefined;
      expect(post?.properties['title']?.deprecated).toBe(true);
      expect(post?.properties['headline']?.deprecated).toBeUndefined();
    });
  });

  describe('change events under the old type name', () => {
    let client: LiveGraphqlClient;
    let count = 0;
    const createItem = async (): Promise<string> => {
      count += 1;
      const created = await http(server.url, 'POST', '/items', { body: { name: `Evented ${count}`, sku: `EVENTED-${ctx.dialect}-${count}`, price: 3 } });
      expect(created.status, created.text).toBe(201);
      return created.json.id as string;
    };
    /** A subscription is registered when the server reads it, which no message acknowledges: create items until each has heard one. */
    const untilListening = async (subscriptions: readonly LiveSubscription[]): Promise<void> => {
      for (let attempt = 0; attempt < 100 && subscriptions.some((sub) => sub.results.waitingCount === 0); attempt++) {
        await createItem();
        await eventsOf(server.app).settle();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const sub of subscriptions) while (sub.results.waitingCount > 0) await sub.results.next();
    };

    beforeAll(() => {
      client = graphqlWsClient(server.url);
    });
    afterAll(async () => {
      await client.dispose();
    });

    it('a GraphQL subscriber by the old field hears the events published under the new name, told it is deprecated', async () => {
      const old = client.subscribe('subscription { productCreated { id name } }');
      const current = client.subscribe('subscription { itemCreated { id name } }');
      try {
        await untilListening([old, current]);
        const id = await createItem();
        const heard = await old.results.next();
        expect(heard.data).toEqual({ productCreated: { id, name: `Evented ${count}` } });
        expect(heard.extensions.deprecations).toEqual([expect.objectContaining({ kind: 'type', coordinate: 'Product', reason: 'Renamed to Item' })]);
        const now = await current.results.next();
        expect(now.data).toEqual({ itemCreated: { id, name: `Evented ${count}` } });
        expect(now.extensions.event.id).toBe(heard.extensions.event.id);
        expect(now.extensions.deprecations).toBeUndefined();
      } finally {
        old.close();
        current.close();
      }
      const fields = await gql(server.url, '{ __type(name: "Subscription") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
      const roots = fields.json.data.__type.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
      for (const name of ['productCreated', 'productUpdated', 'productDeleted']) {
        expect(roots.find((f) => f.name === name)).toEqual({ name, isDeprecated: true, deprecationReason: 'Renamed to Item' });
      }
    });

    it('GET /events?types=<old name> sends them under the old name, with the Deprecation headers, and counts the use', async () => {
      const old = await openChangeStream(server.url, 'types=product.created', ['product.created'], { 'x-client-name': 'old-stream' });
      const byPattern = await openChangeStream(server.url, 'types=product.*', ['product.created']);
      const current = await openChangeStream(server.url, 'types=item.created', ['item.created', 'product.created'], { 'x-client-name': 'new-stream' });
      try {
        expect(old.headers.get('deprecation')).toMatch(/^@\d+$/);
        expect(old.headers.get('link')).toContain('</docs/deprecations#Product>; rel="deprecation"');
        expect(current.headers.get('deprecation')).toBeNull();
        const id = await createItem();
        const heard = await old.events.next();
        expect(heard.type).toBe('product.created');
        expect(heard.data).toMatchObject({ type: 'product.created', data: { id, record: { id, name: `Evented ${count}` } } });
        const matched = await byPattern.events.next();
        expect([matched.type, matched.data.data.id]).toEqual(['product.created', id]);
        const now = await current.events.next();
        expect(now.type).toBe('item.created');
        expect([now.id, now.data.id]).toEqual([heard.id, heard.data.id]);
        await server.engine.deprecationUsage.flush();
        const uses = await readDeprecationUses(server.db);
        expect(uses.filter((row) => row.coordinate === 'Product' && row.client === 'old-stream').map((row) => row.uses)).toEqual([1]);
        expect(uses.filter((row) => row.client === 'new-stream')).toEqual([]);
      } finally {
        old.close();
        byPattern.close();
        current.close();
      }
    });

    it('a webhook endpoint set up with the old name keeps receiving them, under that name; one with the new name gets them under it', async () => {
      const receivers: Record<string, WebhookReceiver> = {};
      try {
        for (const [name, events] of [['old-name', ['product.created']], ['new-name', ['item.*']]] as const) {
          const created = await http(server.url, 'POST', '/admin/webhooks', { headers: admin, body: { name, url: 'http://127.0.0.1:9/placeholder', events } });
          expect(created.status, created.text).toBe(201);
          const receiver = await startReceiver(String(created.json.secret));
          receivers[name] = receiver;
          const moved = await http(server.url, 'PATCH', `/admin/webhooks/${name}`, { headers: admin, body: { url: receiver.url } });
          expect(moved.status, moved.text).toBe(200);
        }
        const id = await createItem();
        const old = await waitForDelivery(receivers['old-name'] as WebhookReceiver, id);
        expect(receivers['old-name']?.unverified ?? []).toEqual([]);
        expect(old.payload).toMatchObject({ type: 'product.created', data: { id, record: { id, name: `Evented ${count}` } } });
        const current = await waitForDelivery(receivers['new-name'] as WebhookReceiver, id);
        expect(current.payload.type).toBe('item.created');
        expect(current.id).toBe(old.id);
      } finally {
        for (const name of Object.keys(receivers)) await http(server.url, 'DELETE', `/admin/webhooks/${name}`, { headers: admin });
        for (const receiver of Object.values(receivers)) await receiver.close();
      }
    });
  });

  describe('GraphQL', () => {
    it('keeps the old field, deprecated in introspection, with the same data', async () => {
      const introspection = await gql(server.url, '{ __type(name: "Post") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
      const fields = introspection.json.data.__type.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
      expect(fields.find((f) => f.name === 'title')).toEqual({ name: 'title', isDeprecated: true, deprecationReason: 'Renamed to headline' });
      expect(fields.find((f) => f.name === 'headline')?.isDeprecated).toBe(false);
      const read = await gql(server.url, 'query($id: ID!) { post(id: $id) { title headline } }', { id: post.id });
      expect(read.json.errors).toBeUndefined();
      expect(read.json.data.post.title).toBe(read.json.data.post.headline);
      expect(read.json.extensions.deprecations).toContainEqual(expect.objectContaining({ kind: 'field', coordinate: 'Post.title', reason: 'Renamed to headline' }));
      const current = await gql(server.url, 'query($id: ID!) { post(id: $id) { headline } }', { id: post.id });
      expect(current.json.extensions?.deprecations ?? []).toEqual([]);
    });

    it('filters, orders and writes by the old name', async () => {
      const filtered = await gql(server.url, 'query($t: String!) { posts(filter: { title: { eq: $t } }, orderBy: [{ field: title }], first: 100) { id } }', { t: 'Same' });
      expect(filtered.json.errors).toBeUndefined();
      expect(filtered.json.data.posts).toContainEqual({ id: post.id });
      const written = await gql(server.url, 'mutation($id: ID!) { updatePost(id: $id, input: { title: "Through GraphQL" }) { headline title } }', { id: post.id });
      expect(written.json.errors).toBeUndefined();
      expect(written.json.data.updatePost).toEqual({ headline: 'Through GraphQL', title: 'Through GraphQL' });
      const conflict = await gql(server.url, 'mutation($id: ID!) { updatePost(id: $id, input: { title: "A", headline: "B" }) { id } }', { id: post.id });
      expect(conflict.json.errors[0].extensions.code).toBe('INPUT_RENAMED_FIELD_CONFLICT');
    });

    it('keeps the old root fields of a renamed type, deprecated', async () => {
      const read = await gql(server.url, 'query($id: ID!) { product(id: $id) { id name } products(first: 100) { id } productsCount }', { id: product.id });
      expect(read.json.errors).toBeUndefined();
      expect(read.json.data.product).toEqual({ id: product.id, name: product.name });
      expect(read.json.extensions.deprecations).toContainEqual(expect.objectContaining({ kind: 'type', coordinate: 'Product', reason: 'Renamed to Item' }));
      expect(read.json.data.products).toContainEqual({ id: product.id });
      const fields = await gql(server.url, '{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
      const roots = fields.json.data.__type.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
      for (const name of ['product', 'products', 'productsCount']) {
        expect(roots.find((f) => f.name === name)).toEqual({ name, isDeprecated: true, deprecationReason: 'Renamed to Item' });
      }
      expect(roots.find((f) => f.name === 'item')?.isDeprecated).toBe(false);
    });

    it('keeps the old link mutations of a renamed list, deprecated', async () => {
      const users = (await http(server.url, 'GET', '/users?fields=id&limit=100')).json.data as { id: string }[];
      const target = users.find((user) => user.id !== follower.user && !follower.followers.includes(user.id))?.id as string;
      const added = await gql(server.url, 'mutation($id: ID!, $target: ID!) { addUserFollowers(id: $id, targetId: $target) { id } }', { id: follower.user, target });
      expect(added.json.errors).toBeUndefined();
      expect(added.json.extensions.deprecations).toContainEqual(expect.objectContaining({ kind: 'field', coordinate: 'User.followers', reason: 'Renamed to fans' }));
      const fans = async (): Promise<string[]> => ((await http(server.url, 'GET', `/users/${follower.user}/fans?fields=id&limit=100`)).json.data as { id: string }[]).map((f) => f.id);
      expect(await fans()).toContain(target);
      const removed = await gql(server.url, 'mutation($id: ID!, $target: ID!) { removeUserFollowers(id: $id, targetId: $target) { id } }', { id: follower.user, target });
      expect(removed.json.errors).toBeUndefined();
      expect(await fans()).not.toContain(target);
      const fields = await gql(server.url, '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
      const roots = fields.json.data.__type.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
      expect(roots.find((f) => f.name === 'addUserFollowers')).toEqual({ name: 'addUserFollowers', isDeprecated: true, deprecationReason: 'Renamed to fans' });
      expect(roots.find((f) => f.name === 'addUserFans')?.isDeprecated).toBe(false);
    });

    it('takes a file at the old path of a renamed type', async () => {
      const put = await putFile(server.url, `/products/${product.id}/photo`, await png(41));
      expect(put.status, put.text).toBe(200);
      expect(put.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(put.headers.get('link')?.match(/#Product>; rel="deprecation"/g)).toHaveLength(1);
      const photo = (await http(server.url, 'GET', `/items/${product.id}?fields=photo`)).json.photo as string;
      expect(photo).toMatch(/^\/files\//);
      expect((await http(server.url, 'GET', photo)).status).toBe(200);
    });

    it('keeps the old mutations of a renamed type, deprecated, writing the renamed table', async () => {
      const created = await gql(server.url, 'mutation { createProduct(input: { name: "Old-name lamp", sku: "RENAMED-SKU-1", price: 12.5 }) { id name } }');
      expect(created.json.errors).toBeUndefined();
      expect(created.json.extensions.deprecations).toContainEqual(expect.objectContaining({ kind: 'type', coordinate: 'Product', reason: 'Renamed to Item' }));
      const id = created.json.data.createProduct.id as string;
      const updated = await gql(server.url, 'mutation($id: ID!) { updateProduct(id: $id, input: { price: 14 }) { price } }', { id });
      expect(updated.json.data, JSON.stringify(updated.json)).toEqual({ updateProduct: { price: 14 } });
      expect((await http(server.url, 'GET', `/items/${id}?fields=name,price`)).json).toEqual({ name: 'Old-name lamp', price: 14 });
      const deleted = await gql(server.url, 'mutation($id: ID!) { deleteProduct(id: $id) { id } }', { id });
      expect(deleted.json.data).toEqual({ deleteProduct: { id } });
      expect((await http(server.url, 'GET', `/items/${id}`)).status).toBe(404);
      const fields = await gql(server.url, '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
      const roots = fields.json.data.__type.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
      for (const name of ['createProduct', 'updateProduct', 'deleteProduct']) {
        expect(roots.find((f) => f.name === name)).toEqual({ name, isDeprecated: true, deprecationReason: 'Renamed to Item' });
      }
    });
  });
});

describeEachDialect('@renamed removed: the old names are gone, the data stays', (ctx) => {
  let server: TestServer;
  let post: { id: string; title: string };
  let product: { id: string; name: string };
  // The schema once the directives are dropped: the new names alone, nothing else changed.
  const DROPPED = AFTER.replaceAll(/ @renamed\(from: "[^"]*"\)/g, '');

  beforeAll(async () => {
    expect(DROPPED).not.toContain('@renamed');
    await ctx.reset();
    const before = await startServer(() => ctx.open(), { model: modelOf(BEFORE, EXAMPLE_SCHEMA), files: false });
    post = (await http(before.url, 'GET', '/posts?fields=id,title&limit=1')).json.data[0];
    product = (await http(before.url, 'GET', '/products?fields=id,name&limit=1')).json.data[0];
    await before.close();
    const during = await startServer(() => ctx.open(), { model: modelOf(AFTER, EXAMPLE_SCHEMA), seed: false, files: false });
    await during.close();
    // startServer migrates without allowDestructive, so a destructive plan would fail this restart.
    server = await startServer(() => ctx.open(), { model: modelOf(DROPPED, EXAMPLE_SCHEMA), seed: false, files: false });
  });
  afterAll(async () => {
    await server.close();
  });

  it('plans no migration step, destructive or not, on the schema without the directives', async () => {
    expect((await migrate(server.db, server.model, { dryRun: true })).steps).toEqual([]);
  });

  it('keeps the data under the new names', async () => {
    expect((await http(server.url, 'GET', `/posts/${post.id}?fields=headline`)).json).toEqual({ headline: post.title });
    expect((await http(server.url, 'GET', `/items/${product.id}?fields=name`)).json).toEqual({ name: product.name });
  });

  it('REST refuses the old field as unknown, in fields= and in input', async () => {
    const read = await http(server.url, 'GET', `/posts/${post.id}?fields=title`);
    expect(read.status).toBe(400);
    expect(read.json.code).toBe('QUERY_UNKNOWN_FIELD');
    const full = await http(server.url, 'GET', `/posts/${post.id}`);
    expect(full.json.title).toBeUndefined();
    expect(full.headers.get('deprecation')).toBeNull();
    const written = await http(server.url, 'PATCH', `/posts/${post.id}`, { body: { title: 'Old name' } });
    expect(written.status).toBe(400);
    expect(written.json.errors).toEqual([expect.objectContaining({ pointer: '/title', code: 'INPUT_UNKNOWN_FIELD' })]);
    expect((await http(server.url, 'GET', `/posts/${post.id}?fields=headline`)).json).toEqual({ headline: post.title });
    expect((await http(server.url, 'GET', `/products/${product.id}`)).status).toBe(404);
  });

  it('GraphQL refuses the old field and root fields in validation', async () => {
    const read = await gql(server.url, 'query($id: ID!) { post(id: $id) { title } }', { id: post.id });
    expect(read.json.data).toBeUndefined();
    expect(read.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const root = await gql(server.url, 'query($id: ID!) { product(id: $id) { id } }', { id: product.id });
    expect(root.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const current = await gql(server.url, 'query($id: ID!) { post(id: $id) { headline } }', { id: post.id });
    expect(current.json).toEqual({ data: { post: { headline: post.title } } });
  });
});

/** The delivery of the event about record `id`, once it arrives. */
async function waitForDelivery(receiver: WebhookReceiver, id: string): Promise<WebhookReceiver['received'][number]> {
  for (let waited = 0; waited < 400; waited++) {
    const found = receiver.received.find((delivery) => delivery.payload.data['id'] === id);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no delivery for ${id}`);
}
