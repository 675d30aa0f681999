/**
 * Image files for upload tests: real images made with sharp, and the bad
 * ones a server must refuse (truncated, a pixel bomb, SVG, text).
 */
import { deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';

/** A PNG of the given size; `seed` varies the colour, so each seed is a new file (a new content address). */
export function png(seed: number, width = 300, height = 200): Promise<Buffer> {
  return solid(seed, width, height).png().toBuffer();
}

export function jpeg(seed: number, width = 300, height = 200): Promise<Buffer> {
  return noisy(seed, width, height).jpeg().toBuffer();
}

export function webp(seed: number, width = 300, height = 200): Promise<Buffer> {
  return solid(seed, width, height).webp().toBuffer();
}

export function avif(seed: number, width = 300, height = 200): Promise<Buffer> {
  return solid(seed, width, height).avif().toBuffer();
}

export function gif(seed: number, width = 300, height = 200): Promise<Buffer> {
  return solid(seed, width, height).gif().toBuffer();
}

/** A larger, incompressible JPEG (about `kib` KiB) for streaming tests. */
export async function bigJpeg(seed: number, kib: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(kib * 1024 * 0.9));
  return noisy(seed, side, side).jpeg({ quality: 100 }).toBuffer();
}

/** The first part of an image: its header is intact, its pixels are not. */
export function truncated(image: Buffer): Buffer {
  return image.subarray(0, Math.floor(image.length * 0.6));
}

export const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');

export const TEXT = Buffer.from('root:x:0:0:root:/root:/bin/bash\n');

/**
 * A valid 8-bit RGB PNG whose header says 30000 × 30000 (900 megapixels, 2.7
 * GB decoded) in about 10 KB: rows of zeros compress to almost nothing.
 */
export function pixelBomb(): Buffer {
  const width = 30_000;
  const height = 30_000;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const rows = deflateSync(Buffer.alloc((width * 3 + 1) * 50));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))]);
}

export async function dimensions(image: Buffer): Promise<{ format: string | undefined; width: number; height: number }> {
  const metadata = await sharp(image).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

function solid(seed: number, width: number, height: number): Sharp {
  return sharp({ create: { width, height, channels: 3, background: { r: (seed * 53) % 256, g: (seed * 101) % 256, b: (seed * 17 + 40) % 256 } } });
}

function noisy(seed: number, width: number, height: number): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed * 2654435761 + 1;
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    pixels[i] = state >>> 24;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
