/**
 * The console at /console, walked through in Chromium as a person would:
 * sign in with an account, browse users, edit one (and meet an If-Match
 * conflict from a second browser), upload a picture, create an API key,
 * watch a change arrive live, manage a webhook endpoint; the same as a
 * moderator seeing less; the phone width in the dark theme. Each step
 * leaves a screenshot in test-artifacts/console/, each main page passes
 * axe-core with no serious or critical violation, and no page logs an
 * error it did not have to (the 412 of the conflict is the one expected).
 * The console is not dialect-dependent (it only speaks HTTP), so the walk
 * runs on SQLite and a shorter smoke on PostgreSQL.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { collectPageErrors, launchChromium } from '../support/browser.js';
import { describePostgres, describeSqlite, type DialectContext } from '../support/databases.js';
import { png } from '../support/images.js';
import { EXAMPLE_SCHEMA, startServer, type TestServer } from '../support/start-server.js';

// Response bodies of several shapes, checked by expect.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read bodies of unknown shape, as the other suites do
type Json = any;

// A walk of many page loads on a machine shared with the rest of the suite.
vi.setConfig({ testTimeout: 90_000 });

const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url);
const ADMIN_KEY = 'console-test-admin-key-0123456789abcdef';
const PASSWORD = 'a long console password 42';
/** The first visit compresses the console's assets once; a busy machine is slow at it. */
const FIRST_VISIT_MS = 60_000;

/** The errors the walk provokes on purpose, which Chromium logs: the wrong password (401), the taken email (409), the conflict (412). */
const EXPECTED_412 = /status of (401|409|412) /;

interface Walk {
  server: TestServer;
  browser: Browser;
  contexts: BrowserContext[];
}

async function rest(server: TestServer, method: string, path: string, body?: unknown, token = ADMIN_KEY): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** An account with a password and a role: signed up as anyone would, then promoted with the admin key. */
async function account(server: TestServer, email: string, role: string): Promise<string> {
  const signUp = await rest(server, 'POST', '/auth/sign-up', { name: `Console ${role}`, email, password: PASSWORD });
  expect(signUp.status).toBe(201);
  const id = String(signUp.body.accountId);
  expect((await rest(server, 'PATCH', `/users/${id}`, { role })).status).toBe(200);
  return id;
}

function setUp(ctx: DialectContext): Walk {
  const walk = { contexts: [] } as unknown as Walk;
  beforeAll(async () => {
    walk.server = await startServer(() => ctx.open(), {
      rules: true,
      server: { auth: { adminKey: ADMIN_KEY }, schemaSources: [{ file: EXAMPLE_SCHEMA, text: readFileSync(EXAMPLE_SCHEMA, 'utf8') }] },
    });
    walk.browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    for (const context of walk.contexts) await context.close();
    await walk.browser.close();
    await walk.server.close();
  });
  return walk;
}

async function newPage(walk: Walk, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await walk.browser.newContext({ viewport });
  walk.contexts.push(context);
  return context.newPage();
}

async function signIn(page: Page, server: TestServer, email: string): Promise<void> {
  await page.goto(`${server.url}/console`, { timeout: FIRST_VISIT_MS });
  await page.getByLabel('email').fill(email);
  await page.getByLabel('password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage });
}

/** axe-core's serious and critical findings on the page as it is now (each with the rule and where). */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

interface PagePerformance {
  getEntriesByType(type: string): { readonly domContentLoadedEventEnd?: number; readonly loadEventEnd?: number; readonly transferSize?: number }[];
}
interface PageDocument {
  readonly documentElement: { readonly dataset: Record<string, string | undefined>; readonly scrollWidth: number };
  querySelector(selector: string): unknown;
  querySelectorAll(selector: string): Iterable<{ readonly textContent: string | null }>;
}
/** When the page first showed what the load timing measures, on its own clock (milliseconds since the navigation started). */
interface Shown {
  signInForm?: number;
  dataList?: number;
}
interface PageWindow {
  readonly document: PageDocument;
  readonly innerWidth: number;
  readonly performance: { now(): number };
  readonly MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void };
  shown?: Shown;
}

// The functions below run inside the page, serialised on their own (functions, not strings: the page's CSP forbids eval), so each reaches the page's globals itself.
function navigationTiming(): { domContentLoaded: number; load: number; transferred: number } {
  const performance = (globalThis as unknown as { performance: PagePerformance }).performance;
  const navigation = performance.getEntriesByType('navigation')[0];
  const transferred = performance.getEntriesByType('resource').reduce((sum, entry) => sum + (entry.transferSize ?? 0), navigation?.transferSize ?? 0);
  return { domContentLoaded: navigation?.domContentLoadedEventEnd ?? -1, load: navigation?.loadEventEnd ?? -1, transferred };
}
/**
 * Installed before the page's own script (an init script): notes the moment
 * the sign-in form, then a type's count on the data overview, enter the
 * page. Watched from inside, since a test that polls from outside reads the
 * clock when its poll runs, late on a busy machine.
 */
function watchWhatIsShown(): void {
  const page = globalThis as unknown as PageWindow;
  const shown: Shown = {};
  page.shown = shown;
  new page.MutationObserver(() => {
    shown.signInForm ??= page.document.querySelector('form input[name="password"]') === null ? undefined : page.performance.now();
    const counts = [...page.document.querySelectorAll('.type-card .count')];
    if (counts.some((count) => /^\d+ records$/.test(count.textContent ?? ''))) shown.dataList ??= page.performance.now();
  }).observe(page.document, { childList: true, subtree: true, characterData: true });
}
function whatWasShown(): Shown {
  return (globalThis as unknown as PageWindow).shown ?? {};
}
function now(): number {
  return (globalThis as unknown as PageWindow).performance.now();
}
function themeOfPage(): string | undefined {
  return (globalThis as unknown as PageWindow).document.documentElement.dataset['theme'];
}
/** The page's width against the viewport's: wider means the person scrolls sideways. */
function pageWidths(): { scrollWidth: number; innerWidth: number } {
  const page = globalThis as unknown as PageWindow;
  return { scrollWidth: page.document.documentElement.scrollWidth, innerWidth: page.innerWidth };
}

describeSqlite('the console in Chromium', (ctx) => {
  const walk = setUp(ctx);
  let adminEmail: string;
  let page: Page;
  let errors: string[];
  /** The cold-cache load's timings (the page's clock), kept in test-artifacts/console/load-timing.json. */
  let loadTiming: Record<string, number> = {};

  beforeAll(async () => {
    adminEmail = 'console-admin@example.com';
    await account(walk.server, adminEmail, 'ADMIN');
    await account(walk.server, 'console-moderator@example.com', 'MODERATOR');
  });

  it('loads cold and shows the sign-in form (its time is measured and kept, not asserted)', async () => {
    // A first visit by another browser context warms the server's compressed copies, as any earlier visitor would.
    const warm = await newPage(walk);
    await warm.goto(`${walk.server.url}/console`, { timeout: FIRST_VISIT_MS });
    await warm.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: FIRST_VISIT_MS });

    page = await newPage(walk);
    errors = collectPageErrors(page);
    await page.addInitScript(watchWhatIsShown);
    await page.goto(`${walk.server.url}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const { signInForm } = await page.evaluate(whatWasShown);
    loadTiming = { ...(await page.evaluate(navigationTiming)), signInFormShownMs: Math.round(signInForm ?? -1) };
    writeFileSync(new URL('load-timing.json', ARTIFACTS), `${JSON.stringify(loadTiming, null, 2)}\n`);
    expect(await page.title()).toBe('Diglot console');
    await shot(page, '01-sign-in');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('signs in with an account and lists every type with its count', async () => {
    await page.getByLabel('email').fill(adminEmail);
    await page.getByLabel('password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('do not match');
    await page.getByLabel('password').fill(PASSWORD);
    const clicked = await page.evaluate(now);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByText(/^\d+ records$/).first().waitFor();
    const { dataList } = await page.evaluate(whatWasShown);
    loadTiming = { ...loadTiming, dataListShownAfterSignInMs: Math.round((dataList ?? -1) - clicked) };
    writeFileSync(new URL('load-timing.json', ARTIFACTS), `${JSON.stringify(loadTiming, null, 2)}\n`);
    for (const type of ['User', 'Post', 'Product', 'Order', 'OrderItem']) await expect(page.getByRole('link', { name: new RegExp(`^${type} `) }).count()).resolves.toBe(1);
    await expect(page.getByRole('link', { name: 'Keys & accounts' }).count()).resolves.toBe(1);
    await shot(page, '02-overview');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('browses users: a page with a count, sorted by a header, filtered', async () => {
    await page.getByRole('link', { name: /^User / }).click();
    const total = (await rest(walk.server, 'GET', '/users?limit=0&count=true')).body.totalCount as number;
    await page.getByRole('heading', { name: `User ${total} records` }).waitFor();
    await expect(page.locator('tbody tr').count()).resolves.toBe(20);
    await page.getByRole('button', { name: 'Sort by name' }).click();
    const sorted = (await rest(walk.server, 'GET', '/users?limit=1&sort=name&fields=name')).body.data[0].name as string;
    await expect.poll(() => page.locator('tbody tr').first().innerText()).toContain(sorted);
    await page.getByLabel('Filter', { exact: true }).selectOption('name');
    await page.getByLabel('Operator').selectOption('startsWith');
    await page.getByLabel('Value').fill('Console');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('heading', { name: 'User 2 records' }).waitFor();
    await shot(page, '03-users');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('edits a user, and a second browser that saved first makes the save a conflict shown in words', async () => {
    await page.goto(`${walk.server.url}/console#/data/User/7`);
    await page.locator('#field-bio').waitFor();
    await page.locator('#field-bio').fill('Edited in the console');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved at/).waitFor();
    expect((await rest(walk.server, 'GET', '/users/7')).body.bio).toBe('Edited in the console');

    const other = await newPage(walk);
    await signIn(other, walk.server, adminEmail);
    await other.goto(`${walk.server.url}/console#/data/User/7`);
    await other.locator('#field-bio').fill('Saved by the second tab');
    await page.locator('#field-bio').fill('Saved by the first tab, too late');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await other.getByText(/^Saved at/).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('changed since you opened it').waitFor();
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect(page.getByRole('table', { name: 'Fields that differ' }).innerText()).resolves.toContain('Saved by the second tab');
    // Nothing was overwritten.
    expect((await rest(walk.server, 'GET', '/users/7')).body.bio).toBe('Saved by the second tab');
    await shot(page, '04-edit-conflict', true);
    await page.getByRole('button', { name: 'Reload (drop my changes)' }).click();
    await expect.poll(() => page.locator('#field-bio').inputValue()).toBe('Saved by the second tab');
  });

  it('shows validation errors beside their fields', async () => {
    await page.locator('#field-email').fill(String((await rest(walk.server, 'GET', '/users/8')).body.email));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#field-email-error').waitFor();
    await expect(page.locator('#field-email').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByRole('button', { name: 'Reload (drop my changes)' }).or(page.locator('#field-email')).first().waitFor();
  });

  it('uploads a picture and shows its preview', async () => {
    await page.goto(`${walk.server.url}/console#/data/User/7`);
    await page.locator('#upload-profilePicture').setInputFiles({ name: 'portrait.png', mimeType: 'image/png', buffer: await png(7, 400, 400) });
    await page.getByText('Uploaded portrait.png.').waitFor();
    const src = await page.locator('img.preview').getAttribute('src');
    expect(src).toMatch(/^\/files\/[0-9a-f]{64}\.png$/);
    expect((await fetch(`${walk.server.url}${src ?? ''}`)).status).toBe(200);
    expect((await rest(walk.server, 'GET', '/users/7')).body.profilePicture).toMatch(/^\/files\//);
    await shot(page, '05-upload', true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('creates an API key that works at once, shown once', async () => {
    await page.getByRole('link', { name: 'Keys & accounts' }).click();
    await page.locator('#key-name').fill('console-ci');
    // The roles come from the schema summary: a list to choose from once it is read.
    await page.locator('select#key-role').selectOption('ADMIN');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByTestId('new-key').innerText();
    expect(key).toMatch(/^dk_/);
    const listed = await rest(walk.server, 'GET', '/admin/api-keys', undefined, key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: { name: string }) => item.name)).toContain('console-ci');
    await page.getByRole('cell', { name: 'console-ci' }).waitFor();
    await shot(page, '06-api-key');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('watches a change arrive live in a table', async () => {
    await page.goto(`${walk.server.url}/console#/data/User`);
    await page.getByLabel('Live').check();
    await page.getByTestId('live-note').getByText(/Updated live/).waitFor();
    expect((await rest(walk.server, 'PATCH', '/users/1', { name: 'Changed Somewhere Else' })).status).toBe(200);
    await page.getByRole('cell', { name: 'Changed Somewhere Else' }).waitFor();
    await shot(page, '07-live');
  });

  it('watches a change arrive live on the events page, over the GET /events stream', async () => {
    const streams: string[] = [];
    const onRequest = (request: Request): void => {
      if (request.headers()['accept']?.includes('text/event-stream') === true) streams.push(new URL(request.url()).pathname);
    };
    page.on('request', onRequest);
    await page.getByRole('link', { name: 'Events & webhooks' }).click();
    // Said once the server has answered the stream's request, and it subscribes before it answers.
    await page.getByTestId('stream-state').getByText(/^Listening/).waitFor();
    page.off('request', onRequest);
    expect(streams).toEqual(['/events']);
    expect((await rest(walk.server, 'PATCH', '/users/2', { bio: 'Changed while the events page watched' })).status).toBe(200);
    const event = page.getByRole('list', { name: 'Change events, newest first' }).getByRole('listitem').filter({ hasText: 'Changed while the events page watched' });
    await event.waitFor();
    await expect(event.locator('.event-type').innerText()).resolves.toBe('user.updated');
    await event.getByText('payload').click();
    await expect(event.locator('pre').innerText()).resolves.toContain('"bio": "Changed while the events page watched"');
    await shot(page, '07-live-events');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows the schema with its rules and a diagram of its relations', async () => {
    await page.getByRole('link', { name: 'Schema' }).click();
    await page.getByText('@allow(read: "true", create: "true"').first().waitFor();
    await expect(page.locator('svg.diagram title').textContent()).resolves.toMatch(/^5 types: User \(/);
    await expect(page.locator('svg.diagram path.edge').count()).resolves.toBeGreaterThanOrEqual(5);
    await shot(page, '08-schema');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('adds, pauses and removes a webhook endpoint', async () => {
    await page.getByRole('link', { name: 'Events & webhooks' }).click();
    await page.locator('#hook-name').fill('console-hook');
    await page.locator('#hook-url').fill('https://hooks.example.com/diglot');
    await page.locator('#hook-events').fill('user.*');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText(/Its signing secret, shown this once: whsec_/).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'console-hook' }).getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    expect((await rest(walk.server, 'GET', '/admin/webhooks/console-hook')).body.paused).toBe(true);
    await shot(page, '09-webhooks');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors.filter((error) => !EXPECTED_412.test(error))).toEqual([]);
  });

  it('shows a moderator less: no keys, no webhooks, no schema files', async () => {
    const moderator = await newPage(walk);
    const moderatorErrors = collectPageErrors(moderator);
    await signIn(moderator, walk.server, 'console-moderator@example.com');
    await moderator.getByText(/^\d+ records$/).first().waitFor();
    await expect(moderator.getByRole('link', { name: 'Keys & accounts' }).count()).resolves.toBe(0);
    await moderator.getByRole('link', { name: 'Events & webhooks' }).click();
    await moderator.getByText('managed by the admin role').waitFor();
    await moderator.getByRole('link', { name: 'Schema' }).click();
    await moderator.getByText('shown to the admin role').waitFor();
    await moderator.goto(`${walk.server.url}/console#/data/Post`);
    await moderator.locator('tbody tr').first().waitFor();
    await shot(moderator, '10-moderator');
    expect(moderatorErrors).toEqual([]);
  });

  it('fits a phone (375×667, dark theme): no main page scrolls sideways', async () => {
    const phone = await newPage(walk, { width: 375, height: 667 });
    const tooWide: string[] = [];
    const measure = async (name: string): Promise<void> => {
      const { scrollWidth, innerWidth } = await phone.evaluate(pageWidths);
      if (scrollWidth > innerWidth) tooWide.push(`${name}: ${scrollWidth} px wide in ${innerWidth}`);
    };
    await phone.goto(`${walk.server.url}/console`);
    await phone.getByRole('heading', { name: 'Sign in' }).waitFor();
    await measure('sign-in');
    await signIn(phone, walk.server, adminEmail);
    await phone.getByRole('button', { name: /^Theme: system/ }).click();
    await phone.getByRole('button', { name: /^Theme: light/ }).click();
    // The page applies the theme once it has rendered the click, a moment after it returns.
    await phone.getByRole('button', { name: /^Theme: dark/ }).waitFor();
    await expect.poll(() => phone.evaluate(themeOfPage)).toBe('dark');
    // Each page once what makes it wide is on it: rows, the record's image field and sub-collections, the diagram, the forms.
    const pages: [string, string, () => Promise<void>][] = [
      ['data overview', '', () => phone.getByText(/^\d+ records$/).first().waitFor()],
      ['data list', 'data/User', () => phone.locator('tbody tr').first().waitFor()],
      ['record', 'data/User/7', () => phone.locator('#sub-followers .count', { hasText: /^\d+$/ }).waitFor()],
      ['another record', 'data/Post/1', () => phone.locator('#upload-cover').waitFor()],
      ['schema', 'schema', () => phone.locator('svg.diagram').waitFor()],
      ['keys', 'keys', () => phone.locator('#key-name').waitFor()],
      ['events', 'events', () => phone.locator('#hook-name').waitFor()],
    ];
    for (const [name, route, ready] of pages) {
      await phone.goto(`${walk.server.url}/console#/${route}`);
      await ready();
      if (route === 'data/User/7') await shot(phone, '11-phone-dark', true);
      await measure(name);
    }
    expect(tooWide).toEqual([]);
    expect(await seriousViolations(phone)).toEqual([]);
  });

  it('left a screenshot of every step', () => {
    const files = readdirSync(ARTIFACTS);
    for (const name of ['01-sign-in', '02-overview', '03-users', '04-edit-conflict', '05-upload', '06-api-key', '07-live', '07-live-events', '08-schema', '09-webhooks', '10-moderator', '11-phone-dark']) {
      expect(files).toContain(`${name}.png`);
    }
    expect(existsSync(new URL('load-timing.json', ARTIFACTS))).toBe(true);
  });
});

describePostgres('the console in Chromium (smoke)', (ctx) => {
  const walk = setUp(ctx);

  it('signs in, browses users and saves an edit with If-Match', async () => {
    await account(walk.server, 'pg-admin@example.com', 'ADMIN');
    const page = await newPage(walk);
    const errors = collectPageErrors(page);
    await signIn(page, walk.server, 'pg-admin@example.com');
    await page.getByRole('link', { name: /^User / }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(20);
    await page.goto(`${walk.server.url}/console#/data/User/3`);
    await page.locator('#field-bio').fill('Edited on PostgreSQL');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved at/).waitFor();
    expect((await rest(walk.server, 'GET', '/users/3')).body.bio).toBe('Edited on PostgreSQL');
    await shot(page, 'postgres-edit');
    expect(errors).toEqual([]);
  });
});
