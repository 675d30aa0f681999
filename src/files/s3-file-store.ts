import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  type ListObjectsCommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ApiError } from '../errors/api-error.js';
import { parseFileKey } from './file-key.js';
import type { FileStore, ReleaseMarks, StagedFile, StoredFile } from './file-store.js';
import { FORMAT_INFO } from './image-format.js';
import { checkedKey, checkedName } from './local-file-store.js';
import { inlineDisposition } from './served-file-headers.js';
import { stageToFile } from './stage-file.js';

export interface S3FileStoreOptions {
  /** `s3://bucket/prefix`: the bucket, and a folder in it for Diglot's objects (may be empty). */
  readonly bucket: string;
  readonly prefix?: string;
  /** An S3-compatible server's URL (MinIO, R2, Garage…); AWS's own when absent. */
  readonly endpoint?: string;
  readonly region?: string;
  /** When absent, the SDK's default chain (instance roles, shared config) finds them. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  /** `bucket` in the path rather than the host name, as self-hosted stores want. */
  readonly forcePathStyle?: boolean;
  /** Where uploads are staged while they are checked (default: the system's temporary directory). */
  readonly stagingDirectory?: string;
  /** Parts of a multipart upload, in bytes (at least 5 MiB, S3's minimum; default 8 MiB): files larger than one part go up in parts. */
  readonly partSize?: number;
}

const MIN_PART = 5 * 1024 * 1024;

/**
 * Files in an S3-compatible bucket, under the prefix:
 *
 *   originals/<key>              committed files
 *   variants/<key>/<name>        derived files (`64.webp`)
 *   releases/<key>               a released file waiting to be deleted (see file-service.ts)
 *
 * Uploads are staged to a local file while hashed (sharp inspects them
 * there), then streamed up: a file larger than one part goes as a multipart
 * upload, never read whole into memory. Object names come only from keys
 * `parseFileKey` accepts. A store that does not answer is
 * `FILE_STORE_UNAVAILABLE` (503); a missing object is simply absent.
 */
export function createS3FileStore(options: S3FileStoreOptions): FileStore {
  const { bucket } = options;
  const prefix = normalisePrefix(options.prefix ?? '');
  const partSize = Math.max(options.partSize ?? 8 * 1024 * 1024, MIN_PART);
  const staging = options.stagingDirectory ?? join(tmpdir(), 'diglot-uploads');
  const client = new S3Client({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    // Checksums only where S3 requires them: many S3-compatible stores reject the SDK's newer default (aws-chunked trailers).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 3000, requestTimeout: 60_000 },
    maxAttempts: 2,
  });
  const original = (key: string): string => `${prefix}originals/${checkedKey(key)}`;
  const variantFolder = (key: string): string => `${prefix}variants/${checkedKey(key)}/`;
  const mark = (key: string): string => `${prefix}releases/${checkedKey(key)}`;

  const head = async (name: string): Promise<{ size: number; at: Date | undefined } | undefined> => {
    const found = await call(() => client.send(new HeadObjectCommand({ Bucket: bucket, Key: name })), true);
    return found === undefined ? undefined : { size: found.ContentLength ?? 0, at: found.LastModified };
  };
  const remove = async (name: string): Promise<void> => {
    await call(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: name })), true);
  };
  const list = async (folder: string): Promise<{ key: string; at: Date | undefined }[]> => {
    const found: { key: string; at: Date | undefined }[] = [];
    let marker: string | undefined;
    for (;;) {
      const page: ListObjectsCommandOutput = await call(() => client.send(new ListObjectsCommand({ Bucket: bucket, Prefix: folder, ...(marker === undefined ? {} : { Marker: marker }) })));
      for (const item of page.Contents ?? []) if (item.Key !== undefined) found.push({ key: item.Key, at: item.LastModified });
      if (page.IsTruncated !== true || found.length === 0) return found;
      marker = page.NextMarker ?? found[found.length - 1]?.key;
    }
  };

  const releases: ReleaseMarks = {
    async mark(key) {
      await call(() => client.send(new PutObjectCommand({ Bucket: bucket, Key: mark(key), Body: '' })));
    },
    unmark: (key) => remove(mark(key)),
    async markedAt(key) {
      return (await head(mark(key)))?.at;
    },
    async list() {
      const folder = `${prefix}releases/`;
      return (await list(folder)).flatMap(({ key, at }) => {
        const name = key.slice(folder.length);
        return parseFileKey(name) === undefined || at === undefined ? [] : [{ key: name, at }];
      });
    },
  };

  return {
    location: `s3://${bucket}/${prefix}`,
    releases,

    async stage(source, limits) {
      const bytes = await stageToFile(source, staging, limits);
      let settled = false;
      const staged: StagedFile = {
        ...bytes,
        async commit(key) {
          if (settled) throw new Error('a staged file can be committed or discarded once');
          const mediaType = FORMAT_INFO[parseFileKey(key)?.format ?? 'png'].mediaType;
          // Upload sends one PutObject below a part's size, and a multipart upload above it, reading the file as it goes.
          const upload = new Upload({
            client,
            params: { Bucket: bucket, Key: original(key), Body: createReadStream(bytes.path), ContentType: mediaType, ContentLength: bytes.size },
            partSize,
            queueSize: 2,
          });
          await call(() => upload.done());
          settled = true;
          await rm(bytes.path, { force: true });
        },
        async discard() {
          settled = true;
          await rm(bytes.path, { force: true });
        },
      };
      return staged;
    },

    async open(key): Promise<StoredFile | undefined> {
      if (parseFileKey(key) === undefined) return undefined;
      const found = await head(original(key));
      if (found === undefined) return undefined;
      return { size: found.size, stream: () => streamObject(client, bucket, original(key)) };
    },

    async exists(key) {
      return parseFileKey(key) !== undefined && (await head(original(key))) !== undefined;
    },

    async delete(key) {
      if (parseFileKey(key) === undefined) return;
      // Variants first: a variant without its original is unreachable clutter, an original without variants is fine.
      for (const variant of await list(variantFolder(key))) await remove(variant.key);
      await remove(original(key));
    },

    async getVariant(key, name) {
      if (parseFileKey(key) === undefined) return undefined;
      const found = await call(() => client.send(new GetObjectCommand({ Bucket: bucket, Key: `${variantFolder(key)}${checkedName(name)}` })), true);
      const body = found?.Body;
      if (body === undefined) return undefined;
      return Buffer.from(await call(() => body.transformToByteArray()));
    },

    async putVariant(key, name, data) {
      const extension = name.slice(name.indexOf('.') + 1);
      const format = Object.values(FORMAT_INFO).find((info) => info.extension === extension);
      // One PutObject: S3 makes an object visible whole or not at all.
      await call(() =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `${variantFolder(key)}${checkedName(name)}`,
            Body: data,
            ...(format === undefined ? {} : { ContentType: format.mediaType }),
          }),
        ),
      );
    },

    async presignedUrl(key, { expiresIn, mediaType, filename, cacheControl }) {
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: original(key),
        ResponseContentType: mediaType,
        ResponseContentDisposition: inlineDisposition(filename),
        ResponseCacheControl: cacheControl,
      });
      return getSignedUrl(client, command, { expiresIn });
    },
  };
}

/** The object's bytes as a stream that opens the GET only when read (a HEAD or a 304 never starts one). */
function streamObject(client: S3Client, bucket: string, name: string): Readable {
  const out = new PassThrough();
  call(() => client.send(new GetObjectCommand({ Bucket: bucket, Key: name })))
    .then((found) => {
      const body = found.Body;
      if (!(body instanceof Readable)) throw new Error('the S3 client answered without a stream');
      body.on('error', (error) => out.destroy(error));
      body.pipe(out);
    })
    .catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/**
 * Runs one S3 call: a store that cannot be reached, or fails on its side, is
 * `FILE_STORE_UNAVAILABLE` (503, never a 500); with `absentIsUndefined`, a
 * missing object is `undefined`.
 */
async function call<T>(send: () => Promise<T>, absentIsUndefined: true): Promise<T | undefined>;
async function call<T>(send: () => Promise<T>, absentIsUndefined?: false): Promise<T>;
async function call<T>(send: () => Promise<T>, absentIsUndefined = false): Promise<T | undefined> {
  try {
    return await send();
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (absentIsUndefined && status === 404) return undefined;
    if (status === undefined || status >= 500 || status === 429 || status === 403) {
      throw new ApiError('FILE_STORE_UNAVAILABLE', { detail: 'The file storage did not answer; try again shortly', cause: error });
    }
    throw error;
  }
}

/** '' or `a/b/`: no leading slash, one trailing slash. */
function normalisePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}
