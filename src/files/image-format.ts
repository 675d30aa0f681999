import { ApiError } from '../errors/api-error.js';

/**
 * The image formats a file field accepts, recognised by their magic bytes —
 * never by the file's name or the Content-Type the client declared, both of
 * which the client chooses freely. SVG is refused on purpose: it is a
 * document that can carry scripts and external references, not pixels.
 */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

export const IMAGE_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp', 'avif', 'gif'];

/** Media type and the extension used in content addresses (`<sha256>.<extension>`). */
export const FORMAT_INFO: Readonly<Record<ImageFormat, { readonly mediaType: string; readonly extension: string }>> = {
  jpeg: { mediaType: 'image/jpeg', extension: 'jpg' },
  png: { mediaType: 'image/png', extension: 'png' },
  webp: { mediaType: 'image/webp', extension: 'webp' },
  avif: { mediaType: 'image/avif', extension: 'avif' },
  gif: { mediaType: 'image/gif', extension: 'gif' },
};

/** How many leading bytes `sniffImageFormat` needs (the AVIF brand list can sit a little way in). */
export const SNIFF_BYTES = 4096;

const ALLOWED = 'JPEG, PNG, WebP, AVIF or GIF';

/**
 * The format the bytes say, or a 415 saying what they are not. `head` is the
 * start of the file (up to SNIFF_BYTES).
 */
export function sniffImageFormat(head: Uint8Array): ImageFormat {
  const format = detect(head);
  if (format !== undefined) return format;
  if (looksLikeSvg(head)) {
    throw new ApiError('FILE_TYPE_NOT_ALLOWED', {
      detail: `SVG is not accepted (it can carry scripts); send a ${ALLOWED} image`,
      extensions: { accept: IMAGE_FORMATS.map((f) => FORMAT_INFO[f].mediaType) },
    });
  }
  throw new ApiError('FILE_TYPE_NOT_ALLOWED', {
    detail: `The file is not a ${ALLOWED} image (judged by its content, not its name)`,
    extensions: { accept: IMAGE_FORMATS.map((f) => FORMAT_INFO[f].mediaType) },
  });
}

function detect(b: Uint8Array): ImageFormat | undefined {
  if (startsWith(b, 0, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'webp';
  if (isAvif(b)) return 'avif';
  return undefined;
}

/**
 * ISO BMFF (ISO/IEC 14496-12 §4.3): a `ftyp` box first, with a major brand
 * and compatible brands. AVIF files carry `avif` (still) or `avis`
 * (sequence); HEIC and other HEIF files do not, and are refused.
 */
function isAvif(b: Uint8Array): boolean {
  if (b.length < 16 || ascii(b, 4, 4) !== 'ftyp') return false;
  const boxSize = ((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0);
  const end = Math.min(b.length, boxSize >>> 0);
  const brands = [ascii(b, 8, 4)];
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(b, at, 4));
  return brands.includes('avif') || brands.includes('avis');
}

/** An XML or SVG document: `<?xml`, `<svg` or `<!DOCTYPE svg` after an optional BOM and whitespace. */
function looksLikeSvg(b: Uint8Array): boolean {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(b.subarray(0, 512)).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return text.startsWith('<?xml') || text.startsWith('<svg') || text.startsWith('<!doctype svg') || /<svg[\s>]/.test(text);
}

function startsWith(b: Uint8Array, at: number, bytes: readonly number[]): boolean {
  return bytes.every((byte, i) => b[at + i] === byte);
}

function ascii(b: Uint8Array, at: number, length: number): string {
  let out = '';
  for (let i = at; i < at + length && i < b.length; i++) out += String.fromCharCode(b[i] ?? 0);
  return out;
}
