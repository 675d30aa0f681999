import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../errors/api-error.js';

/** An upload written to a local file while it was hashed, counted and its head kept. */
export interface StagedBytes {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly head: Buffer;
}

/**
 * Streams `source` into a new file in `directory`, hashing (sha256) and
 * counting as it goes: what every store's `stage` does before the bytes are
 * judged. Past `maxBytes` it stops with FILE_TOO_LARGE; on any failure the
 * partial file is deleted.
 */
export async function stageToFile(source: Readable, directory: string, options: { readonly maxBytes: number; readonly headBytes: number }): Promise<StagedBytes> {
  const { maxBytes, headBytes } = options;
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${randomUUID()}.part`);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        // Refused at once: the rest of the upload is the HTTP server's to read and
        // drop after the 413 has gone out (its lingering close), not the store's.
        done(tooLargeError(maxBytes));
        return;
      }
      hash.update(chunk);
      if (headLength < headBytes) {
        const piece = chunk.subarray(0, headBytes - headLength);
        head.push(piece);
        headLength += piece.length;
      }
      done(null, chunk);
    },
  });
  try {
    // `flush`: the bytes are on disk before the file can be committed, so a
    // crash never leaves a short file under a content address.
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx', flush: true }));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size, head: Buffer.concat(head) };
}

function tooLargeError(maxBytes: number): ApiError {
  return new ApiError('FILE_TOO_LARGE', { detail: `The file is larger than ${formatBytes(maxBytes)}`, extensions: { maxBytes } });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
