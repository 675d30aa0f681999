import { planRecordImage } from '../../plan/record-image.js';
import type { Model, ResourceType } from '../../schema/model.js';
import type { SqlCompilerHooks } from '../dialect.js';
import { compileRead } from './compile-read.js';

/**
 * The SQL rendering a record's REST representation (admin view, default
 * fields) from a row held in a `WITH` clause, by the same read compiler as
 * every GET: an event's `record` and `previous` are exactly what the API
 * would have answered at that moment. Compiled once per type and source.
 */
export class EventImages {
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly model: Model,
    private readonly hooks: SqlCompilerHooks,
  ) {}

  /** One image (`j`) of the one row in `source`; `withId`: of every row in it, each beside its `id`. */
  sql(type: ResourceType, source: string, withId = false): string {
    const key = `${type.name}\n${source}\n${withId}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      const compiled = compileRead(this.model, this.hooks, planRecordImage(this.model, type.name), source, withId);
      // Spliced into other statements at any placeholder number: it must bind nothing (the admin view has no rule values).
      if (compiled.paramOrder.length > 0) throw new Error(`the event image of ${type.name} binds values`);
      text = compiled.sql;
      this.texts.set(key, text);
    }
    return text;
  }
}
