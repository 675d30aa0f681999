import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseFileKey } from './file-key.js';
import type { FileStore, StagedFile, StoredFile } from './file-store.js';
import { stageToFile } from './stage-file.js';

/**
 * The file store on a local directory:
 *
 *   <root>/tmp/<uuid>.part                  uploads being received (same file system, so commit is a rename)
 *   <root>/originals/<aa>/<key>             committed files, fanned out by the first two hex digits
 *   <root>/variants/<aa>/<key>/<name>       derived files (`64.webp`)
 *
 * Paths are built only from keys that `parseFileKey` accepts and variant
 * names of digits and a lowercase extension, so nothing a client sends ever
 * becomes a path: a filename like `../../etc/passwd` is never even read.
 */
export function createLocalFileStore(directory: string): FileStore {
  const root = resolve(directory);
  const tmp = join(root, 'tmp');
  const original = (key: string): string => join(root, 'originals', checkedKey(key).slice(0, 2), key);
  const variantDir = (key: string): string => join(root, 'variants', checkedKey(key).slice(0, 2), key);

  return {
    location: root,

    async stage(source, limits) {
      const { path, sha256, size, head } = await stageToFile(source, tmp, limits);
      return stagedFile(path, sha256, size, head, original);
    },

    async open(key): Promise<StoredFile | undefined> {
      if (parseFileKey(key) === undefined) return undefined;
      const path = original(key);
      const info = await stat(path).catch(() => undefined);
      if (info === undefined || !info.isFile()) return undefined;
      return { size: info.size, stream: () => createReadStream(path) };
    },

    async exists(key) {
      if (parseFileKey(key) === undefined) return false;
      const info = await stat(original(key)).catch(() => undefined);
      return info?.isFile() === true;
    },

    async delete(key) {
      if (parseFileKey(key) === undefined) return;
      // Variants first: a variant without its original is unreachable clutter, an original without variants is fine.
      await rm(variantDir(key), { recursive: true, force: true });
      await rm(original(key), { force: true });
    },

    async getVariant(key, name) {
      if (parseFileKey(key) === undefined) return undefined;
      return readFile(join(variantDir(key), checkedName(name))).catch(() => undefined);
    },

    async putVariant(key, name, data) {
      const folder = variantDir(key);
      const target = join(folder, checkedName(name));
      await mkdir(folder, { recursive: true });
      const temp = join(folder, `.${randomUUID()}.part`);
      try {
        await writeFile(temp, data, { flag: 'wx' });
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
  };
}

function stagedFile(path: string, sha256: string, size: number, head: Buffer, original: (key: string) => string): StagedFile {
  let settled = false;
  return {
    path,
    sha256,
    size,
    head,
    async commit(key) {
      if (settled) throw new Error('a staged file can be committed or discarded once');
      const target = original(key);
      await mkdir(join(target, '..'), { recursive: true });
      // rename(2) is atomic: readers see the old state or the whole file. Same
      // bytes under the same key may already be there (content addressing);
      // replacing them with identical bytes is harmless.
      await rename(path, target);
      settled = true;
    },
    async discard() {
      if (settled) return;
      settled = true;
      await rm(path, { force: true });
    },
  };
}

export function checkedKey(key: string): string {
  if (parseFileKey(key) === undefined) throw new Error(`not a file key: ${JSON.stringify(key)}`);
  return key;
}

export function checkedName(name: string): string {
  if (!/^[0-9]+\.[a-z]+$/.test(name)) throw new Error(`not a variant name: ${JSON.stringify(name)}`);
  return name;
}
