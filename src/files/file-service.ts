import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer as readAll } from 'node:stream/consumers';
import { suggest } from '../util/suggest.js';
import { fileKey, parseFileKey } from './file-key.js';
import type { FileStore, StagedFile, StoredFile } from './file-store.js';
import { FORMAT_INFO, SNIFF_BYTES, type ImageFormat } from './image-format.js';
import { renderVariant } from './image-variants.js';
import { inspectImage, type BeforeDecode, type ImageInfo } from './inspect-image.js';
import { KeyLock } from './key-lock.js';
import { createLocalFileStore } from './local-file-store.js';

export const DEFAULT_FILES_DIRECTORY = '.diglot/files';
export const DEFAULT_MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/**
 * 25 megapixels: a 6000 × 4000 photo from a 24 MP camera passes. Decoding
 * costs about 80 ns a pixel here (a 6300 × 6300 PNG took 3.2 s of CPU), so
 * the bound is also a bound on the CPU one upload can take.
 */
export const DEFAULT_MAX_INPUT_PIXELS = 25_000_000;

export interface FileServiceOptions {
  /** A local directory for the default store (default `.diglot/files`, relative to the working directory). */
  readonly directory?: string;
  /** Another store (for example an S3-compatible one); then `directory` is not used. */
  readonly store?: FileStore;
  /** Largest accepted upload, in bytes (default 5 MiB); larger ones are refused with 413. */
  readonly maxUploadBytes?: number;
  /** Largest accepted image, in pixels (width × height × frames; default 25 million). */
  readonly maxInputPixels?: number;
}

export interface FileLimits {
  readonly maxUploadBytes: number;
  readonly maxInputPixels: number;
}

/** An upload that passed every check and is stored under `key`. */
export interface ReceivedFile extends ImageInfo {
  readonly key: string;
  readonly size: number;
}

export interface Variant {
  readonly data: Buffer;
  readonly format: ImageFormat;
  /** Strong validator: a hash of exactly these bytes. */
  readonly etag: string;
}

/**
 * Files for the engine and the front-ends: uploads checked by content and
 * stored by content address, originals and variants served back, and files
 * deleted once nothing points at them.
 *
 * Consistency with records rests on two rules. A received file is *pinned*
 * from the moment it is committed until its uploader says the write that
 * uses it has settled (`unpin`); `release` never deletes a pinned file. And
 * committing, pinning and releasing one key happen one at a time (a lock per
 * key), so a release that checked "no record points here" cannot delete a
 * file that an upload of the same bytes has just committed. Both hold within
 * one process: instances sharing one store across machines would need a
 * shared lock or a grace period before deletion (not built).
 */
export interface FileService {
  readonly store: FileStore;
  readonly limits: FileLimits;
  /**
   * Streams an upload into the store: at most `maxUploadBytes` (413), an
   * allowed image by its magic bytes (415), at most `maxInputPixels` judged
   * from the header before decoding (400), fully decodable (400). Then it is
   * committed under its content address and pinned once; call `unpin(key)`
   * when the write that uses it has settled. Nothing is kept when a check fails.
   * `beforeDecode` hears the header's size before any pixel is decoded
   * (the engine charges the request for it there).
   */
  receive(source: Readable, beforeDecode?: BeforeDecode): Promise<ReceivedFile>;
  /**
   * Stores an image the server made itself (demo data), without the upload
   * checks; committed and pinned as `receive` does. Answers its key.
   */
  putGenerated(data: Buffer, format: ImageFormat): Promise<string>;
  unpin(key: string): void;
  /**
   * Deletes the file and its variants unless it is pinned or `isReferenced`
   * says a record still points at it. Answers whether it deleted.
   */
  release(key: string, isReferenced: (key: string) => Promise<boolean>): Promise<boolean>;
  /** The original, as uploaded. */
  open(key: string): Promise<StoredFile | undefined>;
  /**
   * The original resized to `width` in `format`: made on the first request
   * (concurrent first requests share one resize), then read from the store.
   * Undefined when there is no such original.
   */
  variant(key: string, width: number, format: ImageFormat): Promise<Variant | undefined>;
  /** Counters for tests and metrics: `resizes` is how many variants were rendered. */
  readonly stats: { readonly resizes: number };
}

const OPTION_KEYS = ['directory', 'store', 'maxUploadBytes', 'maxInputPixels'];

export function createFileService(options: FileServiceOptions = {}): FileService {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      const hint = suggest(key, OPTION_KEYS);
      throw new Error(`Unknown file option "${key}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`);
    }
  }
  const limits: FileLimits = Object.freeze({
    maxUploadBytes: positive(options.maxUploadBytes, DEFAULT_MAX_UPLOAD_BYTES, 'maxUploadBytes'),
    maxInputPixels: positive(options.maxInputPixels, DEFAULT_MAX_INPUT_PIXELS, 'maxInputPixels'),
  });
  const store = options.store ?? createLocalFileStore(options.directory ?? DEFAULT_FILES_DIRECTORY);
  const locks = new KeyLock();
  const pins = new Map<string, number>();
  const rendering = new Map<string, Promise<Variant | undefined>>();
  const recent = new RecentVariants(RECENT_VARIANT_BYTES);
  const remember = (id: string, variant: Variant): Variant => {
    recent.set(id, variant);
    return variant;
  };
  const stats = { resizes: 0 };

  const receive = async (source: Readable, beforeDecode?: BeforeDecode): Promise<ReceivedFile> => {
    const staged = await store.stage(source, { maxBytes: limits.maxUploadBytes, headBytes: SNIFF_BYTES });
    try {
      const info = await inspectImage(staged.path, staged.head, limits.maxInputPixels, beforeDecode);
      const key = fileKey(staged.sha256, info.format);
      await commitPinned(staged, key);
      return { key, size: staged.size, ...info };
    } finally {
      await staged.discard();
    }
  };

  const commitPinned = async (staged: StagedFile, key: string): Promise<void> => {
    await locks.run(key, async () => {
      // The same bytes may be stored already (content addressing): keep that copy.
      if (await store.exists(key)) await staged.discard();
      else await staged.commit(key);
      pins.set(key, (pins.get(key) ?? 0) + 1);
    });
  };

  const render = async (key: string, width: number, format: ImageFormat, name: string): Promise<Variant | undefined> => {
    const original = await store.open(key);
    if (original === undefined) return undefined;
    const data = await renderVariant(await readAll(original.stream()), width, format, limits.maxInputPixels);
    stats.resizes += 1;
    // Under the key's lock: a release deleting the original cannot interleave and leave this variant behind.
    await locks.run(key, async () => {
      if (await store.exists(key)) await store.putVariant(key, name, data);
    });
    return { data, format, etag: etagOf(data) };
  };

  return {
    store,
    limits,
    receive,
    async putGenerated(data, format) {
      const staged = await store.stage(Readable.from([data]), { maxBytes: Number.MAX_SAFE_INTEGER, headBytes: 0 });
      try {
        const key = fileKey(staged.sha256, format);
        await commitPinned(staged, key);
        return key;
      } finally {
        await staged.discard();
      }
    },
    unpin(key) {
      const count = pins.get(key) ?? 0;
      if (count <= 1) pins.delete(key);
      else pins.set(key, count - 1);
    },
    release(key, isReferenced) {
      return locks.run(key, async () => {
        if ((pins.get(key) ?? 0) > 0) return false;
        if (await isReferenced(key)) return false;
        recent.forget(key);
        await store.delete(key);
        return true;
      });
    },
    open: (key) => store.open(key),
    async variant(key, width, format) {
      if (parseFileKey(key) === undefined) return undefined;
      const name = `${width}.${FORMAT_INFO[format].extension}`;
      const id = `${key}/${name}`;
      const known = (): Variant | Promise<Variant | undefined> | undefined => recent.get(id) ?? rendering.get(id);
      const early = known();
      if (early !== undefined) return early;
      const kept = await store.getVariant(key, name);
      if (kept !== undefined) return remember(id, { data: kept, format, etag: etagOf(kept) });
      // Single flight: concurrent first requests for one variant wait for one
      // resize. Looked up again after the disk read, which may have missed a
      // variant that another request rendered (and remembered) meanwhile.
      const late = known();
      if (late !== undefined) return late;
      const pending = render(key, width, format, name)
        .then((variant) => (variant === undefined ? undefined : remember(id, variant)))
        .finally(() => rendering.delete(id));
      rendering.set(id, pending);
      return pending;
    },
    stats,
  };
}

/** Variants served or rendered lately, kept in memory up to a byte budget (least recently used go first). */
const RECENT_VARIANT_BYTES = 16 * 1024 * 1024;

class RecentVariants {
  private readonly entries = new Map<string, Variant>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(id: string): Variant | undefined {
    const hit = this.entries.get(id);
    if (hit !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, hit);
    }
    return hit;
  }

  set(id: string, variant: Variant): void {
    if (variant.data.length > this.budget / 8) return;
    this.drop(id);
    this.entries.set(id, variant);
    this.bytes += variant.data.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.drop(oldest);
    }
  }

  /** Every variant of one original (ids are `<key>/<name>`). */
  forget(key: string): void {
    for (const id of [...this.entries.keys()]) if (id.startsWith(`${key}/`)) this.drop(id);
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.bytes -= entry.data.length;
  }
}

function etagOf(data: Buffer): string {
  return `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`File option ${name} must be a positive integer`);
  return value;
}
