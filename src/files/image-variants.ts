import { loadSharp } from './load-sharp.js';
import type { Model } from '../schema/model.js';
import type { ImageFormat } from './image-format.js';

/**
 * Variants: an original resized to one width from a field's allow-list, in
 * one format: `size` pixels wide, height in proportion, after EXIF
 * orientation. Never enlarged: a narrower original keeps its own size (an
 * enlargement adds no detail, and a 1-pixel-wide strip enlarged to 1280 was
 * millions of rows). Never past `variantBox` either: an image too tall for
 * the box is made narrower until it fits. Animated images give their first frame.
 * Metadata (EXIF, GPS, ICC beyond sRGB) is dropped, as sharp does by default.
 *
 * Format: WebP or AVIF when the `Accept` header names it, otherwise the
 * original's own format (PNG for WebP and AVIF originals, which not every
 * client reads). AVIF is the smaller but the slower to encode, so it is
 * chosen only for small variants. Measured here (2 cores) on three real
 * photos (500–720 px JPEGs), median encode time and size, AVIF at effort 2:
 *
 *   width  WebP                       AVIF
 *     64     4–13 ms,  0.7–1.2 KiB      7–20 ms,  0.6–0.8 KiB
 *    256     9–42 ms,  6.8–16 KiB      20–73 ms,  3.4–7.5 KiB  (about half the bytes)
 *    640    32–72 ms,  23–65 KiB      95–289 ms,  12–32 KiB
 *   1280  130–283 ms,  48–128 KiB    376–905 ms,  29–76 KiB
 *
 * A variant is encoded once and then served from the store, but the first
 * request waits for it, and every (file, width, format) can be asked for:
 * above 256 px WebP keeps that first wait and the CPU an anonymous client
 * can spend per request bounded.
 */
export const AVIF_MAX_WIDTH = 256;
const AVIF_EFFORT = 2;

export function chooseVariantFormat(accept: string | undefined, original: ImageFormat, size: number): ImageFormat {
  const q = acceptedImageQualities(accept);
  const avif = q.get('image/avif') ?? 0;
  const webp = q.get('image/webp') ?? 0;
  if (avif > 0 && size <= AVIF_MAX_WIDTH && avif >= webp) return 'avif';
  if (webp > 0 && webp >= avif) return 'webp';
  if (avif > 0) return 'avif';
  return original === 'webp' || original === 'avif' ? 'png' : original;
}

/**
 * The qualities the client gives `image/avif` and `image/webp` by name.
 * Wildcards (`image/*`, `*\/*`) do not count: browsers that cannot show AVIF
 * send them too, so only an explicit mention proves support.
 */
function acceptedImageQualities(accept: string | undefined): Map<string, number> {
  const qualities = new Map<string, number>();
  if (accept === undefined) return qualities;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (range !== 'image/avif' && range !== 'image/webp') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((piece) => piece.trim());
      if (name === 'q' && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 1;
      }
    }
    qualities.set(range, Math.max(qualities.get(range) ?? 0, q));
  }
  return qualities;
}

/**
 * The longest side each encoder writes: libjpeg stops at 65,500, WebP at
 * 16,383, libheif's AVIF at 16,384, GIF's header holds 16 bits; PNG has no
 * such limit of its own and is held by the pixel bound alone.
 */
const MAX_SIDE: Readonly<Record<ImageFormat, number>> = { jpeg: 65_500, webp: 16_383, avif: 16_384, gif: 65_535, png: 65_535 };

/**
 * Pixels in one variant at most, which bounds the time and memory of an
 * encode any anonymous request can start: a 1280-pixel-wide image up to five
 * times as tall as it is wide fits.
 */
export const MAX_VARIANT_PIXELS = 8_388_608;

/** The box a variant `width` wide in `format` fits inside (aspect ratio kept, never enlarged). */
export function variantBox(width: number, format: ImageFormat): { readonly width: number; readonly height: number } {
  const side = MAX_SIDE[format];
  const boxWidth = Math.min(width, side);
  return { width: boxWidth, height: Math.max(1, Math.min(side, Math.floor(MAX_VARIANT_PIXELS / boxWidth))) };
}

/** Decodes `original` (at most `maxPixels`), resizes it to `width` pixels wide (within `variantBox`) and encodes it as `format`. */
export async function renderVariant(original: Buffer, width: number, format: ImageFormat, maxPixels: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const pipeline = sharp(original, { limitInputPixels: maxPixels, failOn: 'error' })
    .autoOrient()
    .resize({ ...variantBox(width, format), fit: 'inside', withoutEnlargement: true });
  switch (format) {
    case 'avif':
      pipeline.avif({ effort: AVIF_EFFORT });
      break;
    case 'webp':
      pipeline.webp();
      break;
    case 'jpeg':
      pipeline.jpeg();
      break;
    case 'png':
      pipeline.png();
      break;
    case 'gif':
      pipeline.gif();
      break;
  }
  return pipeline.toBuffer();
}

/**
 * Every width some image field allows. A variant URL names only its file, not
 * its field (two fields can share a file), so any allowed width of any field
 * is served; other widths are 404, which bounds the variants anyone can make
 * to files × widths × formats.
 */
export function variantWidths(model: Model): readonly number[] {
  const widths = model.types.flatMap((type) => type.fields.flatMap((field) => (field.kind === 'file' ? field.image.sizes : [])));
  return [...new Set(widths)].sort((a, b) => a - b);
}
