import { renderDemoImage } from '../../files/demo-image.js';
import type { FileService } from '../../files/file-service.js';
import type { Model } from '../../schema/model.js';

/** `Type.field` → the keys of the pictures of records "1".."n", in order. */
export type Pictures = ReadonlyMap<string, readonly string[]>;

/**
 * Generated pictures for the first `perField` records of every file field,
 * pinned (as uploads are) until the rows that use them are written. Square,
 * as wide as the field's largest size up to 256 px (a larger variant is the
 * picture at its own 256 px: variants are never enlarged); deterministic, so
 * their keys are too.
 */
export async function seedPictures(model: Model, counts: ReadonlyMap<string, number>, files: FileService, perField: number): Promise<Pictures> {
  const pictures = new Map<string, string[]>();
  for (const type of model.types) {
    for (const [fieldIndex, field] of type.fields.entries()) {
      if (field.kind !== 'file') continue;
      const total = Math.min(perField, counts.get(type.name) ?? 0);
      const side = Math.min(256, Math.max(...field.image.sizes));
      const salt = hashOf(`${type.name}.${field.name}`) + fieldIndex;
      const keys = await Promise.all(
        Array.from({ length: total }, async (_, i) => {
          const png = await cachedDemoImage(salt * 1000 + i + 1, side);
          return files.putGenerated(png, 'png');
        }),
      );
      pictures.set(`${type.name}.${field.name}`, keys);
    }
  }
  return pictures;
}

/**
 * Rendering is the slow part and its output depends only on its arguments:
 * kept for the life of the process (bounded), so seeding a second database
 * (tests start many) only stores files.
 */
const rendered = new Map<string, Promise<Buffer>>();

function cachedDemoImage(seed: number, side: number): Promise<Buffer> {
  const id = `${seed}:${side}`;
  let png = rendered.get(id);
  if (png === undefined) {
    if (rendered.size >= 1000) rendered.clear();
    png = renderDemoImage(seed, side, side);
    rendered.set(id, png);
  }
  return png;
}

function hashOf(text: string): number {
  let hash = 0;
  for (const char of text) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % 100_000;
}
