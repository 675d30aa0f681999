import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFiles } from '../../schema/load-schema.js';
import type { Model } from '../../schema/model.js';
import { AssetStore } from '../../util/asset-store.js';
import { BARE_BEARER_SCRIPT, exampleQuery, graphiqlPage, PRESET_HEADERS } from './graphiql-page.js';

const EXAMPLE = new URL('../../../examples/social/schema.graphql', import.meta.url).pathname;

let model: Model;
let html: string;
const assets = new AssetStore();

beforeAll(async () => {
  const loaded = await loadSchemaFiles([EXAMPLE]);
  if (!loaded.ok) throw new Error('example schema does not load');
  model = loaded.model;
  html = await graphiqlPage('/graphql', model, assets)();
});

/** The options the page hands to GraphiQL, from its JSON data block. */
function renderOptions(page: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(page);
  if (match?.[1] === undefined) throw new Error('no settings block in the page');
  return (JSON.parse(match[1]) as { graphiql: Record<string, unknown> }).graphiql;
}

/** The `src` of every script of the page, in order. */
function scripts(page: string): string[] {
  return [...page.matchAll(/<script src="([^"]+)"><\/script>/g)].map((match) => match[1] as string);
}

type FetchInput = Request | string;

/** Runs the page's header script against a `fetch` that records what it is given. */
function shimmedFetch(): { fetch: (input: FetchInput, init?: RequestInit) => Promise<Response>; sent: [FetchInput, RequestInit | undefined][] } {
  const sent: [FetchInput, RequestInit | undefined][] = [];
  const window = {
    fetch: (input: FetchInput, init?: RequestInit): Promise<Response> => {
      sent.push([input, init]);
      return Promise.resolve(new Response('{}'));
    },
  };
  const body = BARE_BEARER_SCRIPT;
  // The script as the browser runs it, with `window` standing in for the page's.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code under test is a string of browser script
  new Function('window', body)(window);
  return { fetch: window.fetch, sent };
}

describe('the GraphiQL page', () => {
  it('opens its headers editor preset with an Authorization header waiting for a token, not kept in storage', () => {
    const options = renderOptions(html);
    expect(options).toMatchObject({
      endpoint: '/graphql',
      defaultHeaders: PRESET_HEADERS,
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
    });
    expect(JSON.parse(PRESET_HEADERS)).toEqual({ Authorization: 'Bearer ' });
    expect(html).toContain('\\"Authorization\\": \\"Bearer \\"');
  });

  it('says in its first query where a token goes and where to get one', () => {
    const query = String(renderOptions(html)['defaultQuery']);
    expect(query).toBe(exampleQuery(model));
    expect(query).toMatch(/^# .*\n# .*"Bearer ".*Headers.*\n# `diglot start` prints/);
  });

  it('asks for no field the example schema keeps from anonymous callers, so the first query works without a token', () => {
    const query = exampleQuery(model);
    expect(query).toMatch(/users\(first: 5\) \{\n {4}id\n {4}name\n/);
    // email, phone, birthday: `@allow(read: "id == auth.id")`.
    for (const hidden of ['email', 'phone', 'birthday', 'preferences']) expect(query).not.toMatch(new RegExp(`^\\s*${hidden}\\b`, 'm'));
  });

  it('runs the header script before GraphiQL\'s own, and nothing inline', async () => {
    const [boot, bundle] = scripts(html);
    expect(boot).toMatch(/^\/assets\/[\w-]+\/graphiql-boot\.js$/);
    expect(bundle).toMatch(/^\/assets\/[\w-]+\/graphiql\.js$/);
    expect(String((await assets.find(boot ?? ''))?.body)).toContain(BARE_BEARER_SCRIPT);
    expect(String((await assets.find(bundle ?? ''))?.body)).toContain('YogaGraphiQL');
    // Every <script> either loads a file or is the JSON settings block.
    expect([...html.matchAll(/<script([^>]*)>/g)].map((match) => match[1])).toEqual([' type="application/json" id="graphiql-config"', ` src="${boot}"`, ` src="${bundle}"`]);
    expect(html.length).toBeLessThan(4096);
  });

  it('leaves out an Authorization header with no credential after Bearer, and passes every other request as it is', async () => {
    const { fetch, sent } = shimmedFetch();
    await fetch('/graphql', { method: 'POST', headers: { Authorization: 'Bearer ', 'content-type': 'application/json' } });
    await fetch('/graphql', { method: 'POST', headers: { authorization: 'bearer' } });
    await fetch('/graphql', { method: 'POST', headers: { Authorization: 'Bearer a.b.c' } });
    await fetch('/graphql', { method: 'POST', headers: { Authorization: 'Basic eDp5' } });
    await fetch(new Request('http://localhost/graphql', { headers: { Authorization: 'Bearer ' } }));
    await fetch('/graphql');

    const authorization = ([input, init]: [FetchInput, RequestInit | undefined]): string | null =>
      init?.headers !== undefined ? new Headers(init.headers).get('authorization') : input instanceof Request ? input.headers.get('authorization') : null;
    expect(sent.map(authorization)).toEqual([null, null, 'Bearer a.b.c', 'Basic eDp5', null, null]);
    expect(new Headers(sent[0]?.[1]?.headers).get('content-type')).toBe('application/json');
    expect(sent[0]?.[1]?.method).toBe('POST');
    expect(sent[5]).toEqual(['/graphql', undefined]);
  });
});
