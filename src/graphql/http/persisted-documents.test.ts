import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AutomaticQueries } from '../../engine/automatic-queries.js';
import { createDocumentSource, loadPersistedDocuments, sha256 } from './persisted-documents.js';

const folder = mkdtempSync(join(tmpdir(), 'diglot-pd-'));
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});
const write = (name: string, value: unknown): string => {
  const file = join(folder, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
};
const params = (over: Partial<Parameters<ReturnType<typeof createDocumentSource>['resolve']>[0]>) => ({
  query: undefined,
  variables: undefined,
  operationName: undefined,
  extensions: undefined,
  documentId: undefined,
  ...over,
});

describe('loadPersistedDocuments', () => {
  it('reads a map and an Apollo manifest, accepting sha256: ids', () => {
    const doc = '{ __typename }';
    expect([...loadPersistedDocuments(write('map.json', { [`sha256:${sha256(doc)}`]: doc, custom: doc })).keys()]).toEqual([sha256(doc), 'custom']);
    const manifest = write('manifest.json', { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: sha256(doc), body: doc }] });
    expect(loadPersistedDocuments(manifest).get(sha256(doc))).toBe(doc);
  });

  it('refuses a sha256 id that is not the hash of its document', () => {
    expect(() => loadPersistedDocuments(write('bad.json', { [sha256('x')]: '{ __typename }' }))).toThrow(/not the sha256/);
    expect(() => loadPersistedDocuments(join(folder, 'missing.json'))).toThrow(/Cannot read/);
  });
});

/** The shared store as the source sees it, in memory: what it holds is what it was given (engine/automatic-queries.test.ts tests the real one). */
function memoryQueries(): AutomaticQueries & { readonly held: Map<string, string> } {
  const held = new Map<string, string>();
  return {
    held,
    find: (hash) => Promise.resolve(held.get(hash)),
    register: (hash, document) => {
      held.set(hash, document);
      return Promise.resolve(undefined);
    },
  };
}

const log = { error: () => undefined };

describe('createDocumentSource', () => {
  const doc = '{ users { id } }';
  const apq = { persistedQuery: { version: 1, sha256Hash: sha256(doc) } };

  it('registers automatic persisted queries only with the right hash, and finds them by hash', async () => {
    const queries = memoryQueries();
    const source = createDocumentSource(new Map(), false, queries);
    await expect(source.resolve(params({ extensions: apq }), log)).rejects.toThrow('PersistedQueryNotFound');
    await expect(source.resolve(params({ query: '{ other }', extensions: apq }), log)).rejects.toThrow(/does not match/);
    expect(queries.held.size).toBe(0);
    expect(await source.resolve(params({ query: doc, extensions: apq }), log)).toEqual({ text: doc, persisted: true });
    expect([...queries.held]).toEqual([[sha256(doc), doc]]);
    expect((await source.resolve(params({ extensions: apq }), log)).text).toBe(doc);
    // An uppercase hash names the same document.
    expect((await source.resolve(params({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(doc).toUpperCase() } } }), log)).text).toBe(doc);
  });

  it('checks the protocol shape', async () => {
    const source = createDocumentSource(new Map(), false, memoryQueries());
    await expect(source.resolve(params({ extensions: { persistedQuery: { version: 2, sha256Hash: sha256(doc) } } }), log)).rejects.toThrow(/version/);
    await expect(source.resolve(params({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }), log)).rejects.toThrow(/64 hex/);
    await expect(source.resolve(params({}), log)).rejects.toThrow(/Missing query/);
  });

  it('with onlyPersisted, runs trusted documents only, and registers nothing', async () => {
    const queries = memoryQueries();
    const source = createDocumentSource(new Map([[sha256(doc), doc]]), true, queries);
    expect((await source.resolve(params({ documentId: sha256(doc).toUpperCase() }), log)).text).toBe(doc);
    expect((await source.resolve(params({ query: doc }), log)).text).toBe(doc);
    await expect(source.resolve(params({ query: '{ posts { id } }' }), log)).rejects.toThrow(/only trusted documents/);
    await expect(source.resolve(params({ documentId: 'nope' }), log)).rejects.toThrow(/No trusted document/);
    const other = '{ posts { id } }';
    await expect(source.resolve(params({ query: other, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(other) } } }), log)).rejects.toThrow(/only trusted/);
    expect(queries.held.size).toBe(0);
  });
});
