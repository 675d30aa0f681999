import type { Filter } from '../../plan/read-plan.js';
import type { WriteRules } from '../../plan/write-plan.js';
import type { Model, ResourceType } from '../../schema/model.js';
import type { SqlCompilerHooks, SqlValue } from '../dialect.js';
import { compileFilter } from './compile-filter.js';
import type { SqlStatement } from './compile-write.js';
import { SqlContext } from './sql-context.js';

/**
 * Whether the stored record `id` passes a write's `visible` and `allowed`
 * rules: one row (`visible`, `allowed`, each 1 or 0) when it exists, none
 * when it does not.
 */
export function compileRowRules(model: Model, hooks: SqlCompilerHooks, type: ResourceType, id: string, rules: WriteRules): SqlStatement {
  const ctx = new SqlContext(model, hooks);
  const alias = ctx.alias();
  const fact = (filter: Filter | undefined, name: string): string =>
    `${filter === undefined ? '1' : `CASE WHEN ${compileFilter(ctx, type, alias, filter)} THEN 1 ELSE 0 END`} AS ${name}`;
  // Text order is placeholder order (SQLite's are positional): the facts, then the id.
  const select = `${fact(rules.visible, 'visible')}, ${fact(rules.allowed, 'allowed')}`;
  return bound(ctx, rules, id, `SELECT ${select} FROM ${ctx.table(type)} ${alias} WHERE ${ctx.ref(alias, 'id')} = ${ctx.param({ param: rules.params.length })}`);
}

/** One row when the record `id` as written passes `check`, none otherwise. */
export function compileRowCheck(model: Model, hooks: SqlCompilerHooks, type: ResourceType, id: string, rules: WriteRules, check: Filter): SqlStatement {
  const ctx = new SqlContext(model, hooks);
  const alias = ctx.alias();
  const where = `${ctx.ref(alias, 'id')} = ${ctx.param({ param: rules.params.length })} AND ${compileFilter(ctx, type, alias, check)}`;
  return bound(ctx, rules, id, `SELECT 1 AS ok FROM ${ctx.table(type)} ${alias} WHERE ${where}`);
}

function bound(ctx: SqlContext, rules: WriteRules, id: string, sql: string): SqlStatement {
  const values = [...rules.params, id];
  return { sql, params: ctx.paramOrder.map((index) => values[index] as SqlValue) };
}
