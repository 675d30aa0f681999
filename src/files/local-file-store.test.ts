import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../errors/api-error.js';
import { createLocalFileStore } from './local-file-store.js';
import type { FileStore } from './file-store.js';

const KEY = `${'ab'.repeat(32)}.png`;

describe('the local-directory file store', () => {
  let dir: string;
  let store: FileStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diglot-store-'));
    store = createLocalFileStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tmpFiles = (): string[] => readdirSync(join(dir, 'tmp'));

  it('stages while hashing and counting, and commits atomically under the key', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('hello '), Buffer.from('world')]), { maxBytes: 100, headBytes: 4 });
    expect(staged.size).toBe(11);
    expect(staged.sha256).toBe('b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
    expect(staged.head.toString()).toBe('hell');
    expect(await store.exists(KEY)).toBe(false);
    await staged.commit(KEY);
    await staged.discard();
    expect(tmpFiles()).toEqual([]);
    expect(readFileSync(join(dir, 'originals', 'ab', KEY), 'utf8')).toBe('hello world');
    const file = await store.open(KEY);
    expect(file?.size).toBe(11);
    expect((await buffer(file?.stream() ?? Readable.from([]))).toString()).toBe('hello world');
  });

  it('refuses past maxBytes with FILE_TOO_LARGE and keeps nothing', async () => {
    const error: unknown = await store.stage(Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), { maxBytes: 100, headBytes: 4 }).catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('FILE_TOO_LARGE');
    expect(tmpFiles()).toEqual([]);
  });

  it('keeps nothing when the source fails mid-stream', async () => {
    const broken = new Readable({
      read() {
        this.push(Buffer.alloc(10));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.stage(broken, { maxBytes: 100, headBytes: 4 })).rejects.toThrow('client went away');
    expect(tmpFiles()).toEqual([]);
  });

  it('discards a staged file it never commits', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('x')]), { maxBytes: 100, headBytes: 4 });
    expect(tmpFiles()).toHaveLength(1);
    await staged.discard();
    await staged.discard();
    expect(tmpFiles()).toEqual([]);
  });

  it('keeps variants beside the original and deletes them with it', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('original')]), { maxBytes: 100, headBytes: 0 });
    await staged.commit(KEY);
    await store.putVariant(KEY, '64.webp', Buffer.from('small'));
    expect((await store.getVariant(KEY, '64.webp'))?.toString()).toBe('small');
    expect(await store.getVariant(KEY, '32.webp')).toBeUndefined();
    await store.delete(KEY);
    expect(await store.exists(KEY)).toBe(false);
    expect(await store.getVariant(KEY, '64.webp')).toBeUndefined();
    await store.delete(KEY);
  });

  it('never turns anything but a well-formed key or variant name into a path', async () => {
    for (const key of ['../../etc/passwd', `${'ab'.repeat(32)}.png/../../x`, 'AB.png', `${'ab'.repeat(32)}.exe`, '']) {
      expect(await store.open(key)).toBeUndefined();
      expect(await store.exists(key)).toBe(false);
      expect(await store.getVariant(key, '64.webp')).toBeUndefined();
      await store.delete(key);
    }
    await expect(store.putVariant(KEY, '../../evil', Buffer.from('x'))).rejects.toThrow(/not a variant name/);
    const staged = await store.stage(Readable.from([Buffer.from('x')]), { maxBytes: 100, headBytes: 0 });
    await expect(staged.commit('../../evil.png')).rejects.toThrow(/not a file key/);
    await staged.discard();
    expect(readdirSync(dir)).toEqual(['tmp']);
  });
});
