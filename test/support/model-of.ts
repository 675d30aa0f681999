import { loadSchema } from '../../src/schema/load-schema.js';
import type { Model } from '../../src/schema/model.js';

/** The model of one SDL text, or a throw listing its problems. */
export function modelOf(sdl: string, file = 'test.graphql'): Model {
  const result = loadSchema([{ file, text: sdl }]);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.model;
}
