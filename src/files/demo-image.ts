import { loadSharp } from './load-sharp.js';

/**
 * A deterministic demo picture for seeded records: a symmetric 5 × 5 pattern
 * in one colour on a light background (an "identicon"), as a PNG of
 * `width` × `height` pixels. The same seed gives the same bytes, so the demo
 * data's files have the same content addresses on every machine.
 */
export async function renderDemoImage(seed: number, width: number, height: number): Promise<Buffer> {
  const random = xorshift(seed);
  const hue = random() * 360;
  const ink = hsl(hue, 0.55, 0.5);
  const paper = hsl(hue, 0.3, 0.94);
  const cells = Buffer.alloc(5 * 5 * 3);
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      const colour = random() < 0.5 ? ink : paper;
      cells.set(colour, (y * 5 + x) * 3);
      cells.set(colour, (y * 5 + (4 - x)) * 3);
    }
  }
  const side = Math.floor(Math.min(width, height) * 0.85);
  const left = Math.floor((width - side) / 2);
  const top = Math.floor((height - side) / 2);
  const background = { r: paper[0], g: paper[1], b: paper[2] };
  const sharp = await loadSharp();
  return sharp(cells, { raw: { width: 5, height: 5, channels: 3 } })
    .resize(side, side, { kernel: 'nearest' })
    .extend({ top, bottom: height - side - top, left, right: width - side - left, background })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

function xorshift(seed: number): () => number {
  let state = (Math.imul(seed + 1, 2654435761) >>> 0) || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

function hsl(hue: number, saturation: number, lightness: number): [number, number, number] {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number): number => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}
