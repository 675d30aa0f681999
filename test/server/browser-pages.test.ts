/**
 * The server's two HTML pages, opened in headless Chromium: /docs (Scalar's
 * API reference) and GraphiQL at /graphql. Each loads with no console error
 * and no Content-Security-Policy violation (Chromium reports both on the
 * console), the reference shows the parameters of an operation, GraphiQL
 * runs its opening query, and the heavy scripts arrive compressed under
 * content-hashed URLs cached for a year, so the pages themselves are small.
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectPageErrors, launchChromium } from '../support/browser.js';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * A page's first visit waits for its assets' br forms to be made (a few
 * seconds of CPU for GraphiQL's 9 MB, once per server): on a machine busy
 * with the whole suite that took over 30 s, Playwright's default.
 */
const FIRST_VISIT_MS = 120_000;

interface Loaded {
  readonly url: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  wireBytes: number;
}

/** Every response of the page, with the bytes it took on the wire (compressed, as the browser received it). */
async function recordNetwork(page: Page): Promise<Map<string, Loaded>> {
  const session: CDPSession = await page.context().newCDPSession(page);
  await session.send('Network.enable');
  const byId = new Map<string, Loaded>();
  session.on('Network.responseReceived', (event) => {
    const headers = Object.fromEntries(Object.entries(event.response.headers).map(([name, value]) => [name.toLowerCase(), value]));
    byId.set(event.requestId, { url: event.response.url, status: event.response.status, headers, wireBytes: 0 });
  });
  session.on('Network.loadingFinished', (event) => {
    const loaded = byId.get(event.requestId);
    if (loaded !== undefined) loaded.wireBytes = event.encodedDataLength;
  });
  return byId;
}

/** Runs inside the page (a function, not a string: the page's CSP forbids eval; and self-contained). */
function bodyShowsParameters(): boolean {
  return (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes('Query Parameters');
}

describeEachDialect('the HTML pages in Chromium', (ctx) => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('/docs shows the parameters of GET /users/{id}, with no console error and no CSP violation', async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    const network = await recordNetwork(page);
    await page.goto(`${server.url}/docs/#tag/user/GET/users/{id}`, { waitUntil: 'networkidle', timeout: FIRST_VISIT_MS });
    // The operation's section is rendered once the hash has been followed.
    await page.waitForFunction(bodyShowsParameters, undefined, { timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const name of ['fields', 'include', 'posts.fields', 'posts.limit', 'profilePicture.size']) expect(text).toContain(name);
    expect(text).toContain('Path Parameters');
    // The example request Scalar builds sends no embedded limit without its include (the server would refuse it).
    expect(text).not.toMatch(/posts\.limit=\d/);
    expect(errors).toEqual([]);

    const responses = [...network.values()];
    const html = responses.find((response) => response.url.endsWith('/docs/'));
    expect(html?.headers['content-security-policy']).toContain("script-src 'self'");
    const script = responses.find((response) => /\/assets\/[\w-]+\/scalar\.js$/.test(response.url));
    expect(script?.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script?.headers['content-encoding']).toBe('br');
    expect(script?.wireBytes).toBeLessThan(1_500_000);
    await page.close();
  }, 3 * FIRST_VISIT_MS);

  it('GraphiQL loads small, from cached compressed assets, and runs its opening query with no console error or CSP violation', async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    const network = await recordNetwork(page);
    // 'load', not 'networkidle': the editors' web workers' script requests never report finished to Playwright.
    await page.goto(`${server.url}/graphql`, { waitUntil: 'load', timeout: FIRST_VISIT_MS });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    await page.locator('.graphiql-execute-button').click();
    // The answer appears in the (read-only) result editor.
    await page.locator('.graphiql-response').getByText('"users"').waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);

    const responses = [...network.values()];
    const html = responses.find((response) => response.url.endsWith('/graphql') && response.headers['content-type']?.startsWith('text/html') === true);
    expect(html?.wireBytes).toBeLessThan(4096);
    expect(html?.headers['content-security-policy']).toContain("script-src 'self'");
    const assets = responses.filter((response) => response.url.includes('/assets/'));
    expect(assets.map((asset) => new URL(asset.url).pathname.split('/').pop()).sort()).toEqual(
      expect.arrayContaining(['graphiql-boot.js', 'graphiql.css', 'graphiql.js']),
    );
    for (const asset of assets) expect(asset.headers['cache-control'], asset.url).toBe('public, max-age=31536000, immutable');
    const total = responses.reduce((sum, response) => sum + response.wireBytes, 0);
    // The renderer's self-contained page was 9 MB on every visit.
    expect(total).toBeLessThan(4_000_000);

    // A second visit takes the assets from the browser's cache: only the page and the API are asked for again.
    const again = await recordNetwork(page);
    await page.reload({ waitUntil: 'load' });
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    const fetched = [...again.values()].filter((response) => response.url.includes('/assets/') && response.wireBytes > 0);
    expect(fetched).toEqual([]);
    await page.close();
  }, 3 * FIRST_VISIT_MS);
});
