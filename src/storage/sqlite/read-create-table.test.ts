import { describe, expect, it } from 'vitest';
import { readColumnChecks } from './read-create-table.js';

describe('readColumnChecks', () => {
  it('reads named column checks, with their IN lists, from CREATE TABLE text', () => {
    const sql =
      `CREATE TABLE "users" ("id" TEXT NOT NULL, "role" TEXT NOT NULL DEFAULT 'A' CONSTRAINT "users_role_check" CHECK ("role" IN ('A', 'it''s', 'x,y')), ` +
      `"on" INTEGER CONSTRAINT "users_on_check" CHECK ("on" IN (0, 1)), "n" INTEGER DEFAULT (1 + 2), PRIMARY KEY ("id")) STRICT`;
    expect(Object.fromEntries(readColumnChecks(sql))).toEqual({
      role: { name: 'users_role_check', values: ['A', "it's", 'x,y'] },
      on: { name: 'users_on_check', values: ['0', '1'] },
    });
  });

  it('reads a column ALTER TABLE ADD COLUMN added, and ignores table constraints', () => {
    // The text SQLite keeps after ALTER TABLE "t" ADD COLUMN "status" … on a table with a table-level CHECK.
    const sql =
      `CREATE TABLE "t" ("id" TEXT NOT NULL, "status" TEXT CONSTRAINT "t_status_check" CHECK ("status" IN ('on', 'off')), ` +
      `PRIMARY KEY ("id"), CHECK (length("id") > 0)) STRICT`;
    expect(Object.fromEntries(readColumnChecks(sql))).toEqual({ status: { name: 't_status_check', values: ['on', 'off'] } });
  });

  it('finds nothing in a table without checks', () => {
    expect(readColumnChecks('CREATE TABLE x (a TEXT, b INTEGER)').size).toBe(0);
  });
});
