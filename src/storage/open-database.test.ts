import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { StorageOpenError } from './storage-open-error.js';

describe('openDatabase', () => {
  it('opens a file path (and :memory:) as SQLite', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'diglot-open-'));
    try {
      for (const target of [join(folder, 'app.db'), ':memory:']) {
        const db = await openDatabase(target);
        expect(db.dialect).toBe('sqlite');
        await db.ping();
        await db.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('opens postgres:// and postgresql:// URLs as PostgreSQL', async () => {
    for (const scheme of ['postgres', 'postgresql', 'POSTGRES']) {
      const error: unknown = await openDatabase(`${scheme}://nobody@127.0.0.1:1/none`, { connectTimeoutMs: 1000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageOpenError);
      expect((error as StorageOpenError).code).toBe('UNREACHABLE');
    }
  });
});
