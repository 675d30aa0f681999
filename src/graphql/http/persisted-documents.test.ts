import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

describe('createDocumentSource', () => {
  const doc = '{ users { id } }';
  const apq = { persistedQuery: { version: 1, sha256Hash: sha256(doc) } };

  it('registers automatic persisted queries only with the right hash, and forgets the oldest', () => {
    const source = createDocumentSource(new Map(), false, 1);
    expect(() => source.resolve(params({ extensions: apq }))).toThrow('PersistedQueryNotFound');
    expect(() => source.resolve(params({ query: '{ other }', extensions: apq }))).toThrow(/does not match/);
    expect(source.resolve(params({ query: doc, extensions: apq }))).toEqual({ text: doc, persisted: true });
    expect(source.resolve(params({ extensions: apq })).text).toBe(doc);
    const other = '{ posts { id } }';
    source.resolve(params({ query: other, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(other) } } }));
    expect(() => source.resolve(params({ extensions: apq }))).toThrow('PersistedQueryNotFound');
  });

  it('checks the protocol shape', () => {
    const source = createDocumentSource(new Map(), false, 10);
    expect(() => source.resolve(params({ extensions: { persistedQuery: { version: 2, sha256Hash: sha256(doc) } } }))).toThrow(/version/);
    expect(() => source.resolve(params({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }))).toThrow(/64 hex/);
    expect(() => source.resolve(params({}))).toThrow(/Missing query/);
  });

  it('with onlyPersisted, runs trusted documents only', () => {
    const source = createDocumentSource(new Map([[sha256(doc), doc]]), true, 10);
    expect(source.resolve(params({ documentId: sha256(doc).toUpperCase() })).text).toBe(doc);
    expect(source.resolve(params({ query: doc })).text).toBe(doc);
    expect(() => source.resolve(params({ query: '{ posts { id } }' }))).toThrow(/only trusted documents/);
    expect(() => source.resolve(params({ documentId: 'nope' }))).toThrow(/No trusted document/);
  });
});
