import { describe, expect, it } from 'vitest';
import { loadSchema } from '../schema/load-schema.js';
import sharp from 'sharp';
import { AVIF_MAX_WIDTH, chooseVariantFormat, MAX_VARIANT_PIXELS, renderVariant, variantBox, variantWidths } from './image-variants.js';

describe('chooseVariantFormat', () => {
  const browser = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
  it.each([
    [browser, 'jpeg', 64, 'avif'],
    [browser, 'png', AVIF_MAX_WIDTH, 'avif'],
    [browser, 'png', AVIF_MAX_WIDTH + 1, 'webp'],
    ['image/webp,*/*', 'jpeg', 64, 'webp'],
    ['image/avif', 'jpeg', 1280, 'avif'],
    ['image/webp;q=0.5, image/avif;q=0.9', 'png', 640, 'avif'],
    ['image/webp;q=0.9, image/avif;q=0.5', 'png', 64, 'webp'],
    ['*/*', 'jpeg', 64, 'jpeg'],
    ['image/*', 'gif', 64, 'gif'],
    [undefined, 'png', 64, 'png'],
    ['image/webp;q=0, image/avif;q=0', 'jpeg', 64, 'jpeg'],
    ['*/*', 'webp', 64, 'png'],
    ['text/html', 'avif', 64, 'png'],
  ] as const)('Accept %s, original %s, width %i → %s', (accept, original, width, expected) => {
    expect(chooseVariantFormat(accept, original, width)).toBe(expected);
  });
});

describe('variantWidths', () => {
  it('is every width any image field allows, once, in order', () => {
    const loaded = loadSchema([
      {
        file: 'w.graphql',
        text: 'type A { id: ID! p(size: Int): String @image(sizes: [64, 32]) } type B { id: ID! q(size: Int): String @image(sizes: [64, 512]) } type C { id: ID! }',
      },
    ]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(variantWidths(loaded.model)).toEqual([32, 64, 512]);
  });
});

describe('variantBox', () => {
  it('is the width, and as tall as the pixel bound and the format allow', () => {
    expect(variantBox(1280, 'png')).toEqual({ width: 1280, height: Math.floor(MAX_VARIANT_PIXELS / 1280) });
    expect(variantBox(256, 'webp')).toEqual({ width: 256, height: 16_383 });
    expect(variantBox(64, 'jpeg')).toEqual({ width: 64, height: 65_500 });
    expect(variantBox(64, 'gif')).toEqual({ width: 64, height: 65_535 });
    expect(variantBox(99_999, 'webp')).toEqual({ width: 16_383, height: 512 });
  });
});

describe('renderVariant', () => {
  const image = (width: number, height: number): Promise<Buffer> => sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer();
  const size = async (data: Buffer): Promise<[number, number]> => {
    const meta = await sharp(data).metadata();
    return [meta.width, meta.height];
  };

  it('never enlarges, and keeps every variant inside its box', async () => {
    expect(await size(await renderVariant(await image(1, 60), 1280, 'jpeg', 40_000_000))).toEqual([1, 60]);
    expect(await size(await renderVariant(await image(300, 200), 64, 'png', 40_000_000))).toEqual([64, 43]);
    expect(await size(await renderVariant(await image(2, 40_000), 256, 'webp', 40_000_000))).toEqual([1, 16_383]);
    const [width, height] = await size(await renderVariant(await image(1000, 10_000), 1280, 'png', 40_000_000));
    expect(width * height).toBeLessThanOrEqual(MAX_VARIANT_PIXELS);
    expect([width, height]).toEqual([655, 6553]);
  });
});
