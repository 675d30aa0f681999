import { FORMAT_INFO, IMAGE_FORMATS, type ImageFormat } from './image-format.js';

/**
 * A stored file's content address: `<sha256 of the bytes, lowercase hex>.<extension>`,
 * for example `9f86d0…0a08.png`. It is what a record's file column holds and
 * what its URL ends with (`/files/<key>`). It is URL-safe, it never comes from
 * a client's filename, and two uploads of the same bytes share one key (and
 * one file), so deleting a file must first check that no record still points
 * at it.
 */
export function fileKey(sha256: string, format: ImageFormat): string {
  return `${sha256}.${FORMAT_INFO[format].extension}`;
}

const KEY = /^([0-9a-f]{64})\.([a-z]+)$/;

/** The key's parts, or undefined when the text is not a key this server makes (so it is never used in a path). */
export function parseFileKey(key: string): { readonly sha256: string; readonly format: ImageFormat } | undefined {
  const match = KEY.exec(key);
  if (match === null) return undefined;
  const format = IMAGE_FORMATS.find((candidate) => FORMAT_INFO[candidate].extension === match[2]);
  return format === undefined ? undefined : { sha256: match[1] as string, format };
}

/** A content address never changes meaning: any cache may keep what it names for a year without asking again. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
