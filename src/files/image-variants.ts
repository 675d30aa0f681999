import { loadSharp } from './load-sharp.js';
import type { Model } from '../schema/model.js';
import type { ImageFormat } from './image-format.js';

/**
 * Variants: an original resized to one width from a field's allow-list, in
 * one format. The width is exact (`size` pixels wide, height in proportion,
 * after EXIF orientation); a smaller original is enlarged, so a URL that
 * says 64 always gives 64 pixels. Animated images give their first frame.
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

/** Decodes `original` (at most `maxPixels`), resizes it to `width` pixels wide and encodes it as `format`. */
export async function renderVariant(original: Buffer, width: number, format: ImageFormat, maxPixels: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const pipeline = sharp(original, { limitInputPixels: maxPixels, failOn: 'error' })
    .autoOrient()
    .resize({ width, withoutEnlargement: false });
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
