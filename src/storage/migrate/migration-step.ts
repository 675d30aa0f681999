import type { MigrationStep } from './schema-spec.js';

export function step(description: string, sql: readonly string[], destructive = false, problem?: string): MigrationStep {
  return Object.freeze({ sql: Object.freeze([...sql]), description, destructive, problem });
}

/** Identifier and string quoting both dialects share (the SQL standard's). */
export const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
export const sqlText = (value: string): string => `'${value.replaceAll("'", "''")}'`;
