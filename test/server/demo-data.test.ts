import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * The demo data `diglot start` and `diglot seed` write holds together as
 * real data does: one query per invariant, each counting the rows that
 * break it, on both databases.
 */
describeEachDialect('Demo data that looks real', (ctx) => {
  let server: TestServer;
  const count = async (sql: string): Promise<number> => Number((await server.db.all<{ n: number | string }>(sql))[0]?.n);

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      files: false,
      seed: { counts: { User: 120, Post: 600, Product: 40, Order: 150, OrderItem: 450 }, linksPerRecord: 8 },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('no record was updated before it was created', async () => {
    for (const table of ['users', 'posts', 'products', 'orders']) {
      expect(await count(`SELECT count(*) AS n FROM ${table}`), table).toBeGreaterThan(0);
      expect(await count(`SELECT count(*) AS n FROM ${table} WHERE updated_at < created_at`), table).toBe(0);
    }
  });

  it('a post is published after it was written, and a draft is not published', async () => {
    expect(
      await count(
        "SELECT count(*) AS n FROM posts WHERE (status = 'DRAFT' AND published_at IS NOT NULL) OR (status <> 'DRAFT' AND (published_at IS NULL OR published_at < created_at OR published_at > updated_at))",
      ),
    ).toBe(0);
  });

  it("every order has lines, and its total is the sum of its lines' quantity × unit price, to the cent", async () => {
    expect(await count('SELECT count(*) AS n FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id)')).toBe(0);
    expect(
      await count('SELECT count(*) AS n FROM orders o WHERE abs(o.total - (SELECT sum(i.quantity * i.unit_price) FROM order_items i WHERE i.order_id = o.id)) >= 0.005'),
    ).toBe(0);
  });

  it("an order line's unit price is its product's price", async () => {
    expect(await count('SELECT count(*) AS n FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.unit_price <> p.price')).toBe(0);
  });

  it('products have product names (no person among them) and shop prices', async () => {
    expect(await count('SELECT count(*) AS n FROM products p WHERE EXISTS (SELECT 1 FROM users u WHERE u.name = p.name)')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM products WHERE price <= 0 OR price > 1000 OR abs(price * 100 - round(price * 100)) > 0.001')).toBe(0);
    const names = await server.db.all<{ name: string; price: number }>("SELECT name, price FROM products WHERE id IN ('1', '2') ORDER BY id");
    expect(names).toEqual([
      { name: 'Walnut Desk Lamp', price: 96.99 },
      { name: 'Walnut Coffee Mug', price: 14.99 },
    ]);
  });

  it('posts have titles and bodies that read like posts', async () => {
    // A title of a few words; a body of sentences in paragraphs.
    expect(await count("SELECT count(*) AS n FROM posts WHERE title NOT LIKE '% %' OR body NOT LIKE '%.' OR body NOT LIKE '%.%\n\n%'")).toBe(0);
    // The same seed writes the same data on every machine and database.
    const first = await server.db.all<{ title: string }>("SELECT title FROM posts WHERE id IN ('1', '2', '3') ORDER BY id");
    expect(first.map((post) => post.title)).toMatchInlineSnapshot(`
      [
        "Three mistakes we made with writing docs",
        "Rate limiting, revisited",
        "TypeScript generics: a beginner's guide",
      ]
    `);
  });

  it('nobody follows themself', async () => {
    expect(await count('SELECT count(*) AS n FROM users_followers')).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM users_followers WHERE source_id = target_id')).toBe(0);
  });
});
