import type { SchemaSource } from '../../schema/load-schema.js';
import type { Model } from '../../schema/model.js';
import { SdlLocator } from './sdl-locator.js';

/** One side of a comparison: a loaded model and the SDL files it came from. */
export interface ContractSide {
  readonly model: Model;
  readonly locator: SdlLocator;
}

export function contractSide(model: Model, sources: readonly SchemaSource[]): ContractSide {
  return { model, locator: new SdlLocator(sources) };
}
