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
import type { NamedLock } from '../storage/dialect.js';

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
  /**
   * With a store several instances share (S3): how long a released file
   * waits before it is deleted, in ms (default 10 minutes). Longer than any
   * upload's wait between being stored and being written into a record.
   */
  readonly releaseDelayMs?: number;
}

/** Locks every instance on the database respects (see Database.advisoryLock). */
export type SharedLock = <T>(locks: readonly NamedLock[], work: () => Promise<T>) => Promise<T>;

/** What the engine gives the service once it is bound to a database. */
export interface FileBinding {
  /** Does any record, of any instance, point at `key`? Asked of the database. */
  readonly isReferenced: (key: string) => Promise<boolean>;
  /** Absent where the database is one process's (SQLite): the in-process locks are then all there is. */
  readonly lock?: SharedLock;
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
 * file that an upload of the same bytes has just committed.
 *
 * Both rules hold within one process. When the store is shared by several
 * instances (it has `releases`), a release only *marks* the file, in the
 * store; a sweep deletes a marked file once its mark is `releaseDelayMs`
 * old, under a database lock on the file and after asking the database
 * again whether any record points at it. An upload of the same bytes, on any
 * instance, takes the same lock and withdraws the mark before it counts on
 * the stored object. So an instance that releases a file while another
 * stores the same bytes for a new record can never delete it from under
 * that record: either the sweep ran first (the upload then finds no object
 * and uploads it again) or the mark is gone (or the record is there by the
 * time the mark is due, as long as the write follows its upload within the
 * delay). Variants are rendered under a database lock per variant, so
 * instances asking at once render it once; the others read it back.
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
   * says a record still points at it (with a shared store: marks it, for a
   * later sweep to delete). Answers whether it deleted or marked it.
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
  /**
   * Called by the engine: how to ask the database about references, and its
   * locks. With a shared store it also starts the periodic sweep.
   */
  bind(binding: FileBinding): void;
  /** Stops the periodic sweep (the server calls it when it closes). */
  close(): void;
  /**
   * Deletes marked files whose delay has passed and that no record points
   * at (a shared store; nothing otherwise). Answers how many it deleted.
   */
  sweep(): Promise<number>;
  /** Counters for tests and metrics: `resizes` is how many variants were rendered. */
  readonly stats: { readonly resizes: number };
}

const OPTION_KEYS = ['directory', 'store', 'maxUploadBytes', 'maxInputPixels', 'releaseDelayMs'];

/** Default of `releaseDelayMs`. */
export const DEFAULT_RELEASE_DELAY_MS = 10 * 60 * 1000;

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
  const releaseDelay = options.releaseDelayMs ?? DEFAULT_RELEASE_DELAY_MS;
  if (!Number.isSafeInteger(releaseDelay) || releaseDelay < 0) throw new Error('File option releaseDelayMs must be a whole number of milliseconds');
  const marks = store.releases;
  let binding: FileBinding | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  /** The database's locks when there are some, else a pass-through (one process: the in-process locks serialise it). */
  const shared: SharedLock = (names, work) => (binding?.lock === undefined ? work() : binding.lock(names, work));
  const fileLock = (key: string): NamedLock => ({ name: `file:${key}` });

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
    await locks.run(key, () =>
      shared([fileLock(key)], async () => {
        // Withdrawn before the object is counted on: a sweep holding this lock has deleted it already, or will find no mark.
        await marks?.unmark(key);
        // The same bytes may be stored already (content addressing): keep that copy.
        if (await store.exists(key)) await staged.discard();
        else await staged.commit(key);
        pins.set(key, (pins.get(key) ?? 0) + 1);
      }),
    );
  };

  const render = async (key: string, width: number, format: ImageFormat, name: string): Promise<Variant | undefined> => {
    const original = await store.open(key);
    if (original === undefined) return undefined;
    const data = await renderVariant(await readAll(original.stream()), width, format, limits.maxInputPixels);
    stats.resizes += 1;
    if (binding?.lock !== undefined) {
      // The caller holds the file's lock, shared: no sweep can be deleting the original now.
      await store.putVariant(key, name, data);
    } else {
      // Under the key's lock: a release deleting the original cannot interleave and leave this variant behind.
      await locks.run(key, async () => {
        if (await store.exists(key)) await store.putVariant(key, name, data);
      });
    }
    return { data, format, etag: etagOf(data) };
  };

  /** Renders once across instances: under the variant's lock, another instance's rendering is read back instead. */
  const renderOnce = (key: string, width: number, format: ImageFormat, name: string): Promise<Variant | undefined> => {
    if (binding?.lock === undefined) return render(key, width, format, name);
    return binding.lock([{ name: `variant:${key}/${name}` }, { ...fileLock(key), shared: true }], async () => {
      const kept = await store.getVariant(key, name);
      return kept === undefined ? render(key, width, format, name) : { data: kept, format, etag: etagOf(kept) };
    });
  };

  const sweepOne = (key: string): Promise<boolean> =>
    locks.run(key, () =>
      shared([fileLock(key)], async () => {
        if (marks === undefined || binding === undefined || (pins.get(key) ?? 0) > 0) return false;
        // Asked again under the lock: an upload may have withdrawn the mark, or a later release renewed it.
        const at = await marks.markedAt(key);
        if (at === undefined || at.getTime() + releaseDelay > Date.now()) return false;
        const unused = !(await binding.isReferenced(key));
        if (unused) {
          recent.forget(key);
          await store.delete(key);
        }
        await marks.unmark(key);
        return unused;
      }),
    );

  const sweep = async (): Promise<number> => {
    if (marks === undefined || binding === undefined) return 0;
    let deleted = 0;
    for (const { key, at } of await marks.list()) {
      if (at.getTime() + releaseDelay > Date.now()) continue;
      if (await sweepOne(key)) deleted += 1;
    }
    return deleted;
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
        if (marks !== undefined) {
          // Shared store: deleted later, by a sweep that asks the database again (see above).
          await marks.mark(key);
          return true;
        }
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
      const pending = renderOnce(key, width, format, name)
        .then((variant) => (variant === undefined ? undefined : remember(id, variant)))
        .finally(() => rendering.delete(id));
      rendering.set(id, pending);
      return pending;
    },
    bind(next) {
      binding = next;
      if (marks === undefined || sweeper !== undefined) return;
      // Any instance sweeps any mark: one listing of the marks a minute (sooner with a shorter delay).
      sweeper = setInterval(() => void sweep().catch(() => undefined), Math.max(1000, Math.min(releaseDelay, 60_000)));
      sweeper.unref();
    },
    close() {
      clearInterval(sweeper);
      sweeper = undefined;
    },
    sweep,
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
