import type { Model, ResourceType, Field } from '../../schema/model.js';
import type { Param } from '../../plan/read-plan.js';
import type { SqlCompilerHooks } from '../dialect.js';

/**
 * State of one compilation: table aliases, and the order in which plan
 * parameters appear as placeholders. The compiled SQL refers to plan params
 * only through `paramOrder`, so it can be cached and rebound with new values.
 */
export class SqlContext {
  readonly paramOrder: number[] = [];
  /** Tables the statement reads: the cache facts behind ETags. */
  readonly tables = new Set<string>();
  private aliasCount = 0;

  constructor(
    readonly model: Model,
    readonly sql: SqlCompilerHooks,
  ) {}

  alias(): string {
    return `t${this.aliasCount++}`;
  }

  param(p: Param): string {
    this.paramOrder.push(p.param);
    return this.sql.placeholder(this.paramOrder.length - 1);
  }

  type(name: string): ResourceType {
    const type = this.model.typesByName.get(name);
    if (type === undefined) throw new Error(`plan names unknown type ${name}`);
    return type;
  }

  field(type: ResourceType, name: string): Field {
    const field = type.fieldsByName.get(name);
    if (field === undefined) throw new Error(`plan names unknown field ${type.name}.${name}`);
    return field;
  }

  /** `alias.column`, quoted. */
  ref(alias: string, column: string): string {
    return `${alias}.${this.sql.quoteIdent(column)}`;
  }

  table(type: ResourceType): string {
    this.tables.add(type.table);
    return this.sql.quoteIdent(type.table);
  }

  joinTable(name: string): string {
    this.tables.add(name);
    return this.sql.quoteIdent(name);
  }
}

/** A string literal for SQL text; used only for values the schema fixed, never for input. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
