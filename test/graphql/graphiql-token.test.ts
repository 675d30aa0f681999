import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectPageErrors, launchChromium } from '../support/browser.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'graphiql-token-secret-0123456789abcdef';
const ADMIN_KEY = 'graphiql-token-admin-key-0123456789';

/** GraphiQL's editors are Monaco models, named by what they hold (`…-operation.graphql`, `…-request-headers.json`, `…-response.json`). */
interface MonacoWindow {
  __MONACO?: { editor: { getModels(): { uri: { path: string }; getValue(): string; setValue(value: string): void }[] } };
}

/**
 * GraphiQL in Chromium: its headers pane opens on `Authorization: Bearer `,
 * and a token pasted there is what the page sends. Before it, the page asks
 * as anonymous and a private field is refused at its path; with the owner's
 * token, the same query shows it.
 */
describeEachDialect('GraphiQL with a token in its headers pane', (ctx) => {
  let server: TestServer;
  let browser: Browser;
  let owner: string;
  let email: string;
  let token: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { rules: true, seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 }, server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } } });
    const [user] = (await http(server.url, 'GET', '/users?limit=1&fields=id,email', { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json.data as { id: string; email: string }[];
    owner = user?.id ?? '';
    email = user?.email ?? '';
    token = await new SignJWT({ sub: owner, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  const editor = (page: Page, name: string, value?: string): Promise<string> =>
    page.evaluate(
      ([suffix, text]) => {
        const model = (globalThis as unknown as MonacoWindow).__MONACO?.editor.getModels().find((candidate) => candidate.uri.path.endsWith(suffix));
        if (model === undefined) throw new Error(`no ${suffix} editor`);
        if (text !== undefined) model.setValue(text);
        return model.getValue();
      },
      [name, value] as const,
    );

  /** Runs the operation in the editor and waits for the response pane to change to an answer. */
  async function run(page: Page): Promise<Record<string, unknown>> {
    await editor(page, '-response.json', '');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => (globalThis as unknown as MonacoWindow).__MONACO?.editor.getModels().find((model) => model.uri.path.endsWith('-response.json'))?.getValue().includes('"data"') === true);
    return JSON.parse(await editor(page, '-response.json')) as Record<string, unknown>;
  }

  it('asks as anonymous until a token is pasted, then as its holder', async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${server.url}/graphql`);
    await page.waitForFunction(() => (globalThis as unknown as MonacoWindow).__MONACO?.editor.getModels().some((model) => model.uri.path.endsWith('-request-headers.json')) === true);
    expect(JSON.parse(await editor(page, '-request-headers.json'))).toEqual({ Authorization: 'Bearer ' });

    await editor(page, '-operation.graphql', `{ user(id: "${owner}") { id email } }`);
    const anonymous = await run(page);
    expect(anonymous['data']).toEqual({ user: { id: owner, email: null } });
    expect(anonymous['errors']).toEqual([expect.objectContaining({ path: ['user', 'email'], extensions: expect.objectContaining({ code: 'FIELD_FORBIDDEN' }) })]);

    await editor(page, '-request-headers.json', JSON.stringify({ Authorization: `Bearer ${token}` }));
    const asOwner = await run(page);
    expect(asOwner).toEqual({ data: { user: { id: owner, email } } });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
