import type { Readable } from 'node:stream';

/**
 * Where file bytes live. The store knows nothing about images, records or
 * HTTP: it stages a stream, commits it under a content address, serves it
 * back, and keeps derived files (image variants) beside the original.
 *
 * Putting a file is two steps so that nothing is visible before it is
 * checked: `stage` streams the upload to a private place while hashing and
 * counting it (refusing it past `maxBytes`), the caller inspects the staged
 * bytes, then `commit(key)` makes them visible under the key in one atomic
 * step — or `discard()` forgets them. A file is therefore either absent or
 * complete; a reader never sees half of one.
 *
 * The local-directory store (`local-file-store.ts`) is the default. The
 * S3-compatible store (`s3-file-store.ts`) fits the same contract: it stages
 * to a local temporary file (sharp inspects it there), `commit` uploads it
 * under the key (idempotent: the key is the content's hash), `open` streams
 * `GetObject`, and variants are small objects beside the original. Being
 * shared by several instances, it also keeps `releases` (deletions wait
 * and are decided against the database, see file-service.ts) and can
 * presign a URL for redirects.
 */
export interface FileStore {
  /** For logs and `diglot` output: where the files are. */
  readonly location: string;
  /**
   * Streams `source` to a private staging place, hashing (sha256) and
   * counting as it goes. Past `maxBytes` it stops reading, deletes what it
   * wrote and throws FILE_TOO_LARGE; if the source fails (a client that hangs
   * up mid-upload), it deletes what it wrote and rethrows.
   */
  stage(source: Readable, options: { readonly maxBytes: number; readonly headBytes: number }): Promise<StagedFile>;
  /** The stored file, or undefined. */
  open(key: string): Promise<StoredFile | undefined>;
  exists(key: string): Promise<boolean>;
  /** Removes the file and every variant of it; removing an absent file is not an error. */
  delete(key: string): Promise<void>;
  /** A derived file (`64.webp`) kept beside the original, or undefined. */
  getVariant(key: string, name: string): Promise<Buffer | undefined>;
  /** Stores a derived file atomically (readers see all of it or none). */
  putVariant(key: string, name: string, data: Buffer): Promise<void>;
  /**
   * Present on a store that several instances share: files are not deleted
   * when released but marked, and deleted later by whichever instance
   * sweeps, after checking again that no record refers to them.
   */
  readonly releases?: ReleaseMarks;
  /** Present on a store that can hand out a short-lived URL of the original (`--files-serve redirect`). */
  presignedUrl?(key: string, options: PresignOptions): Promise<string>;
}

/** Pending deletions of a shared store, kept in the store itself. */
export interface ReleaseMarks {
  /** Notes that `key` may be deleted once nothing refers to it (again: a later mark restarts its wait). */
  mark(key: string): Promise<void>;
  /** Withdraws a mark (an upload stored the same bytes again). */
  unmark(key: string): Promise<void>;
  /** When `key` was marked, by the store's clock, or undefined. */
  markedAt(key: string): Promise<Date | undefined>;
  /** Every marked key with the time it was marked. */
  list(): Promise<readonly { readonly key: string; readonly at: Date }[]>;
}

export interface PresignOptions {
  /** Seconds the URL stays valid. */
  readonly expiresIn: number;
  /** The response's `Content-Type` and `Content-Disposition` filename, as Diglot would send them. */
  readonly mediaType: string;
  readonly filename: string;
  readonly cacheControl: string;
}

/** An upload that arrived completely and has not been judged yet. */
export interface StagedFile {
  /** A local path to the bytes, readable until `commit` or `discard`. */
  readonly path: string;
  /** Lowercase hex sha256 of the whole file. */
  readonly sha256: string;
  readonly size: number;
  /** The first bytes (up to the `headBytes` asked for), for magic-number checks. */
  readonly head: Buffer;
  /** Makes the bytes visible under `key`, atomically. Afterwards `discard` does nothing. */
  commit(key: string): Promise<void>;
  /** Forgets the bytes. Safe to call more than once, and after `commit`. */
  discard(): Promise<void>;
}

export interface StoredFile {
  readonly size: number;
  stream(): Readable;
}
