import type { Principal } from '../plan/principal.js';
import { both, fieldAccess, NO_ROWS, rowRule, type RuleScope } from '../plan/read-rules.js';
import type { Model } from '../schema/model.js';
import { compileFileReaders, type FileHolder } from '../storage/compile/compile-file-readers.js';
import type { Database } from '../storage/dialect.js';

/**
 * Whether `principal` may read some record that holds the stored file `key`
 * in a file field they may read (rules applied, as for a read of that
 * record): one statement over every file field of the model.
 */
export async function mayReadFile(model: Model, db: Database, key: string, principal: Principal): Promise<boolean> {
  const params: unknown[] = [];
  const scope: RuleScope = {
    model,
    principal,
    param: (value) => {
      params.push(value);
      return { param: params.length - 1 };
    },
  };
  const keyParam = scope.param(key);
  const holders: FileHolder[] = [];
  for (const type of model.types) {
    for (const field of type.fields) {
      if (field.kind !== 'file') continue;
      const access = fieldAccess(scope, type, field);
      const rows = rowRule(scope, type);
      if (access.kind === 'denied' || rows === NO_ROWS) continue;
      holders.push({ type, field, filter: both(rows, access.kind === 'masked' ? access.mask : undefined) });
    }
  }
  const { sql, params: values } = compileFileReaders(model, db.sql, holders, keyParam, params);
  return (await db.all(sql, values)).length > 0;
}
