import type { Readable } from 'node:stream';
import type { FileService, ReceivedFile } from '../files/file-service.js';
import type { ImageInfo } from '../files/inspect-image.js';
import type { RequestContext } from '../plan/request-context.js';
import { chargeImage } from './request-meter.js';
import { FileInput } from '../plan/file-input.js';
import type { Model } from '../schema/model.js';
import { compileFileReference } from '../storage/compile/compile-file-keys.js';
import type { Database } from '../storage/dialect.js';
import type { ReleaseFiles } from './write-executor.js';

/** Stores one uploaded file (checked by content) and gives the value to put in the record's input. */
export type ReceiveUpload = (source: Readable) => Promise<FileInput & { readonly file: ReceivedFile }>;

export interface EngineFiles {
  readonly service: FileService;
  /** Does any record point at `key`? */
  isReferenced(key: string): Promise<boolean>;
  /** After a write: delete the files no record points at any more. */
  release: ReleaseFiles;
  /** See `Engine.withUploads`. */
  withUploads<T>(context: RequestContext, work: (receive: ReceiveUpload) => Promise<T>): Promise<T>;
}

/**
 * The engine's side of record ↔ file consistency. A record points at a file
 * only once the file is stored and checked (an upload is committed before
 * the write that uses it starts); an upload whose write fails, or that no
 * write used, is deleted when the request is over; a file a write stops
 * pointing at is deleted after COMMIT unless another record still holds it.
 */
export function bindFiles(model: Model, db: Database, service: FileService): EngineFiles {
  const query = compileFileReference(model, db.sql);
  const isReferenced = async (key: string): Promise<boolean> => {
    if (query === undefined) return false;
    const { sql, params } = query(key);
    return (await db.all(sql, params)).length > 0;
  };
  service.bind({ isReferenced, ...(db.advisoryLock === undefined ? {} : { lock: db.advisoryLock }) });
  const release: ReleaseFiles = async (keys) => {
    for (const key of new Set(keys)) {
      // A file that cannot be deleted now stays as an orphan: it wastes space
      // but breaks nothing, and the write it follows has already committed.
      await service.release(key, isReferenced).catch(() => false);
    }
  };
  return {
    service,
    isReferenced,
    release,
    async withUploads(context, work) {
      const received: string[] = [];
      // Each image is charged by its pixels once its header is read, before it is decoded.
      const charge = async (info: ImageInfo): Promise<void> => {
        await chargeImage(context.meter, info.width * info.height * info.pages);
      };
      try {
        return await work(async (source) => {
          const file = await service.receive(source, charge);
          received.push(file.key);
          return Object.assign(new FileInput(file.key), { file });
        });
      } finally {
        for (const key of received) service.unpin(key);
        await release(received);
      }
    },
  };
}
