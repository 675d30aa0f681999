/**
 * /docs's "Test Request", as an anonymous visitor uses it on a server set up
 * like `diglot start` (rules, an admin key, a JWT secret, so the page has an
 * authentication box): open a public list, press Send without touching
 * anything, get a 200. Before, a preselected empty bearer scheme sent
 * `Authorization: Bearer ` and the first try was a 401. The form lists
 * `filter` as one row that takes the object as JSON (it listed every
 * `filter[not][…]` path, hundreds of rows), and what is typed there is sent
 * as deepObject brackets.
 */
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectPageErrors, launchChromium } from '../support/browser.js';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** The first visit waits for Scalar's 4 MB script to be compressed, once per server; on a busy machine that is slow. */
const FIRST_VISIT_MS = 120_000;

describeEachDialect('/docs "Test Request" as an anonymous visitor', (ctx) => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      server: { auth: { adminKey: 'docs-try-it-admin-key-0123456789abcdef', jwtSecret: 'docs-try-it-jwt-secret-0123456789abcdef' } },
    });
    browser = await launchChromium();
  }, FIRST_VISIT_MS);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  /** Opens `GET /users`'s request form (Scalar's modal client). */
  async function openUsersForm(page: Page): Promise<Locator> {
    page.setDefaultTimeout(FIRST_VISIT_MS);
    await page.goto(`${server.url}/docs/#tag/user/GET/users`, { waitUntil: 'networkidle', timeout: FIRST_VISIT_MS });
    // The button's accessible name carries its operation, in a visually hidden span.
    await page.getByRole('button', { name: 'Test Request (get /users)' }).click();
    const dialog = page.getByRole('dialog');
    await sendButton(dialog).waitFor();
    return dialog;
  }

  /** The address bar's Send (shown on a wide page; the response pane has a second one until the first answer). */
  function sendButton(dialog: Locator): Locator {
    return dialog.getByRole('button', { name: /^Send get request to / });
  }

  /** Presses Send and returns the request it made to the list route, with its answer's status. */
  async function send(page: Page, dialog: Locator): Promise<{ request: Request; status: number | undefined }> {
    const sent = page.waitForRequest((request) => new URL(request.url()).pathname === '/users');
    await sendButton(dialog).click();
    const request = await sent;
    const response = await request.response();
    return { request, status: response?.status() };
  }

  it('sends a public read with no Authorization header and gets 200, untouched', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectPageErrors(page);
    const dialog = await openUsersForm(page);
    const { request, status } = await send(page, dialog);
    expect(request.headers()['authorization']).toBeUndefined();
    expect(status).toBe(200);
    expect(errors).toEqual([]);
    await page.close();
  }, 3 * FIRST_VISIT_MS);

  it('shows each filter as one row, which takes the object as JSON and sends it as brackets', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const dialog = await openUsersForm(page);
    const keys = await dialog.locator('.code-input-lite__editor[data-placeholder="Key"]').allInnerTexts();
    const filterRows = keys.map((key) => key.trim()).filter((key) => /(^|\.)filter(\[|$)/.test(key));
    // One for the list, one per embeddable list relation of User (posts, followers, following, orders).
    expect(filterRows.sort()).toEqual(['filter', 'followers.filter', 'following.filter', 'orders.filter', 'posts.filter']);

    await dialog.locator('tr#filter .code-input-lite__editor[data-placeholder="Value"]').click();
    await page.keyboard.type('{"name":{"startsWith":"A"},"isVerified":"true"}');
    const { request, status } = await send(page, dialog);
    const query = new URL(request.url()).searchParams;
    expect(query.get('filter[name][startsWith]')).toBe('A');
    expect(query.get('filter[isVerified]')).toBe('true');
    expect(status).toBe(200);
    const body = (await (await request.response())?.json()) as { data: { name: string; isVerified: boolean }[] };
    expect(body.data.length).toBeGreaterThan(0);
    for (const user of body.data) expect([user.name.startsWith('A'), user.isVerified]).toEqual([true, true]);
    await page.close();
  }, 3 * FIRST_VISIT_MS);
});
