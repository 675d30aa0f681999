import type { Metadata } from 'sharp';
import { loadSharp } from './load-sharp.js';
import { ApiError } from '../errors/api-error.js';
import { sniffImageFormat, type ImageFormat } from './image-format.js';

export interface ImageInfo {
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  /** Frames of an animated GIF or WebP; 1 otherwise. */
  readonly pages: number;
}

/** Told what an image's header says before its pixels are decoded; rejecting stops the upload there. */
export type BeforeDecode = (info: ImageInfo) => Promise<void> | void;

/**
 * Judges a staged upload by its content, cheapest check first:
 *
 * 1. magic bytes (`sniffImageFormat`): not an allowed image → 415;
 * 2. the header only (sharp `metadata()`, no pixels decoded): width × height
 *    × frames above `maxPixels` → 400 FILE_TOO_MANY_PIXELS. A 9 KB PNG can
 *    claim 30000 × 30000 pixels (3.6 GB decoded): this is where such a
 *    pixel bomb stops, in about a millisecond;
 * 3. `beforeDecode` with what the header says (the engine charges the
 *    request's budget for the pixels there, and may refuse it);
 * 4. a full decode of every frame (sharp `stats()`, which streams through the
 *    pixels without holding them, with `limitInputPixels` as a second bound),
 *    so a truncated or corrupt image is a 400 FILE_CORRUPT now rather than a
 *    broken picture later.
 */
export async function inspectImage(path: string, head: Buffer, maxPixels: number, beforeDecode?: BeforeDecode): Promise<ImageInfo> {
  if (head.length === 0) throw new ApiError('FILE_CORRUPT', { detail: 'The file is empty' });
  const format = sniffImageFormat(head);
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    // No pixel limit here: this reads the header only, and the limit is checked just below with a clear error.
    metadata = await sharp(path, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw corrupt(format, error);
  }
  const width = metadata.width;
  const height = metadata.height;
  const pages = metadata.pages ?? 1;
  if (!agrees(format, metadata) || !(width > 0 && height > 0)) {
    throw new ApiError('FILE_CORRUPT', { detail: `The file starts like ${format.toUpperCase()} but is not a readable ${format.toUpperCase()} image` });
  }
  const pixels = width * height * pages;
  if (pixels > maxPixels) {
    throw new ApiError('FILE_TOO_MANY_PIXELS', {
      detail: `The image is ${width} × ${height}${pages > 1 ? ` × ${pages} frames` : ''} (${megapixels(pixels)} MP); the limit is ${megapixels(maxPixels)} MP`,
      extensions: { maxPixels },
    });
  }
  const info: ImageInfo = { format, width, height, pages };
  await beforeDecode?.(info);
  try {
    await sharp(path, { limitInputPixels: maxPixels, failOn: 'error', pages: -1 }).stats();
  } catch (error) {
    throw corrupt(format, error);
  }
  return info;
}

/** The header's format must be the one the magic bytes named (AVIF is HEIF with AV1 inside). */
function agrees(format: ImageFormat, metadata: Metadata): boolean {
  if (format === 'avif') return metadata.format === 'heif' && metadata.compression === 'av1';
  return metadata.format === format;
}

function corrupt(format: ImageFormat, cause: unknown): ApiError {
  return new ApiError('FILE_CORRUPT', {
    detail: `The ${format.toUpperCase()} image is truncated or corrupt and cannot be decoded`,
    cause,
  });
}

function megapixels(pixels: number): string {
  return (pixels / 1_000_000).toFixed(pixels < 10_000_000 ? 1 : 0);
}
