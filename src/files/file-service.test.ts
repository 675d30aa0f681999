import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../errors/api-error.js';
import { pixelBomb, png, truncated } from '../../test/support/images.js';
import { createFileService, type FileService } from './file-service.js';

describe('the file service', () => {
  let dir: string;
  let files: FileService;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diglot-service-'));
    files = createFileService({ directory: dir, maxUploadBytes: 64 * 1024, maxInputPixels: 1_000_000 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const receive = (data: Buffer): ReturnType<FileService['receive']> => files.receive(Readable.from([data]));
  const codeOf = async (work: Promise<unknown>): Promise<string> => {
    const error = await work.then(() => undefined, (e: unknown) => e);
    return isApiError(error) ? error.code : String(error);
  };

  it('receives an image: checked, stored under its content address, described', async () => {
    const file = await receive(await png(1, 120, 80));
    expect(file).toMatchObject({ format: 'png', width: 120, height: 80, pages: 1 });
    expect(file.key).toMatch(/^[0-9a-f]{64}\.png$/);
    expect(await files.store.exists(file.key)).toBe(true);
  });

  it('refuses by content, with the pixel limit checked from the header', async () => {
    expect(await codeOf(receive(pixelBomb()))).toBe('FILE_TOO_MANY_PIXELS');
    expect(await codeOf(receive(await png(2, 1001, 1000)))).toBe('FILE_TOO_MANY_PIXELS');
    expect(await codeOf(receive(truncated(await png(3, 300, 300))))).toBe('FILE_CORRUPT');
    expect(await codeOf(receive(Buffer.from('GIF89a but not really')))).toBe('FILE_CORRUPT');
    expect(await codeOf(receive(Buffer.alloc(70 * 1024)))).toBe('FILE_TOO_LARGE');
  });

  it('never deletes a pinned file, nor one a record still points at', async () => {
    const { key } = await receive(await png(4));
    let referenced = false;
    const isReferenced = (): Promise<boolean> => Promise.resolve(referenced);
    expect(await files.release(key, isReferenced)).toBe(false);
    files.unpin(key);
    referenced = true;
    expect(await files.release(key, isReferenced)).toBe(false);
    referenced = false;
    expect(await files.release(key, isReferenced)).toBe(true);
    expect(await files.store.exists(key)).toBe(false);
  });

  it('pins once per upload: the same bytes twice need two unpins', async () => {
    const image = await png(5);
    const first = await receive(image);
    const second = await receive(image);
    expect(second.key).toBe(first.key);
    files.unpin(first.key);
    expect(await files.release(first.key, () => Promise.resolve(false))).toBe(false);
    files.unpin(first.key);
    expect(await files.release(first.key, () => Promise.resolve(false))).toBe(true);
  });

  it('renders a variant once for concurrent requests, and keeps it for the next service on the same store', async () => {
    const { key } = await receive(await png(6, 200, 100));
    const variants = await Promise.all(Array.from({ length: 6 }, () => files.variant(key, 64, 'webp')));
    expect(files.stats.resizes).toBe(1);
    expect(new Set(variants.map((variant) => variant?.etag)).size).toBe(1);
    const again = createFileService({ directory: dir });
    expect((await again.variant(key, 64, 'webp'))?.data.equals(variants[0]?.data ?? Buffer.alloc(0))).toBe(true);
    expect(again.stats.resizes).toBe(0);
    expect(await files.variant(`${'0'.repeat(64)}.png`, 64, 'webp')).toBeUndefined();
    expect(await files.variant('../x', 64, 'webp')).toBeUndefined();
  });

  it('refuses unknown options with a suggestion, and bad limits', () => {
    expect(() => createFileService({ maxUploadByte: 1 } as never)).toThrow('Unknown file option "maxUploadByte"; did you mean "maxUploadBytes"?');
    expect(() => createFileService({ maxInputPixels: 0 })).toThrow(/positive integer/);
  });
});
