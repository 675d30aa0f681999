import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LIMITS, planReadOne } from '../../src/plan/build-read.js';
import type { Principal } from '../../src/plan/principal.js';
import type { WritePlan, WriteRules } from '../../src/plan/write-plan.js';
import type { Model, ResourceType } from '../../src/schema/model.js';
import { compileRead } from '../../src/storage/compile/compile-read.js';
import type { CascadeEvents, CompiledCascade } from '../../src/storage/compile/compile-cascade.js';
import { WriteCompiler, type WriteInput, type WriteStep } from '../../src/storage/compile/compile-write-plan.js';
import type { SqlStatement } from '../../src/storage/compile/compile-write.js';
import type { DialectCapabilities, SqlCompilerHooks, SqlValue } from '../../src/storage/dialect.js';
import { postgresHooks } from '../../src/storage/postgres/postgres-hooks.js';
import { sqliteHooks } from '../../src/storage/sqlite/sqlite-hooks.js';
import { describeEachDialect } from '../support/databases.js';
import { loadExampleModel, startServer, type TestServer } from '../support/start-server.js';

/**
 * Golden files: each representative write plan beside the statements it
 * compiles to on each dialect, in the order the engine runs them, with their
 * params. They change only when asked (`UPDATE_SNAPSHOTS=1 npm test`), never
 * silently.
 */
const GOLDEN_DIR = new URL('./write-plans/', import.meta.url).pathname;

/** The capabilities the drivers declare (checked against the real databases below). */
const DIALECTS: Record<'sqlite' | 'postgres', { readonly sql: SqlCompilerHooks; readonly supports: DialectCapabilities; readonly shard: number }> = {
  sqlite: { sql: sqliteHooks, supports: { aggregateFilter: true, transactionalDdl: true, concurrentWrites: false, writableCte: false }, shard: 0 },
  postgres: { sql: postgresHooks, supports: { aggregateFilter: true, transactionalDdl: true, concurrentWrites: true, writableCte: true, rowLocks: true }, shard: 3 },
};

const NOW = '2026-01-02T03:04:05.678Z';
const ADMIN: Principal = { id: null, role: 'ADMIN', claims: {}, admin: true, via: 'admin-key' };
/** "Only the author": the shape the rules planner gives `author == auth.id`. */
const OWN_POSTS: WriteRules = { params: ['7'], visible: { op: 'eq', field: 'status', value: { param: 1 } }, allowed: { op: 'eq', field: 'author', value: { param: 0 } } };

interface Case {
  readonly plan: WritePlan;
  /** Field name → stored value, as the engine converts the input. */
  readonly columns?: Readonly<Record<string, SqlValue>>;
  readonly precondition?: boolean;
  readonly releasesFiles?: boolean;
  /** The read-back of a create: these fields of the new record. */
  readonly readBack?: readonly string[];
}

const CASES: Record<string, Case> = {
  'create-user': { plan: { kind: 'create', type: 'User', values: {} }, columns: { id: 'new-1', name: 'Ada', email: 'ada@example.org' } },
  'create-post-with-read-back': {
    plan: { kind: 'create', type: 'Post', values: {}, actor: { id: '7', role: 'MEMBER', via: 'jwt' } },
    columns: { id: 'new-1', title: 'Hello', body: 'First post', author: '7', createdAt: NOW, updatedAt: NOW },
    readBack: ['id', 'title', 'createdAt'],
  },
  'create-post-with-rule-check': {
    plan: { kind: 'create', type: 'Post', values: {}, rules: { params: ['7'], check: { op: 'eq', field: 'author', value: { param: 0 } } } },
    columns: { id: 'new-1', title: 'Hello', body: 'First post', author: '7', createdAt: NOW, updatedAt: NOW },
  },
  'update-post-under-rules-and-if-match': {
    plan: { kind: 'update', type: 'Post', id: '1', values: {}, replace: false, rules: { ...OWN_POSTS, params: ['7', 'PUBLISHED'] } },
    columns: { title: 'Hello again', updatedAt: NOW },
    precondition: true,
  },
  'update-user-picture': {
    plan: { kind: 'update', type: 'User', id: '7', values: { profilePicture: 'sha256-abc.png' }, replace: false },
    columns: { profilePicture: 'sha256-abc.png' },
    releasesFiles: true,
  },
  'update-setting-nothing': { plan: { kind: 'update', type: 'User', id: '7', values: {}, replace: false }, columns: {} },
  'delete-user-with-cascade-and-files': { plan: { kind: 'delete', type: 'User', id: '7' }, releasesFiles: true },
  'delete-user-under-rules-with-cascade': {
    plan: {
      kind: 'delete',
      type: 'User',
      id: '7',
      rules: {
        params: ['7'],
        allowed: { op: 'eq', field: 'id', value: { param: 0 } },
        cascade: { Post: { allowed: { op: 'eq', field: 'author', value: { param: 0 } } }, Order: { visible: { op: 'eq', field: 'customer', value: { param: 0 } } } },
      },
      actor: { id: '7', role: 'MEMBER', via: 'jwt' },
    },
  },
  'connect-following': { plan: { kind: 'connect', type: 'User', field: 'following', id: '7', targetId: '8' } },
  'disconnect-following-under-rules': {
    plan: { kind: 'disconnect', type: 'User', field: 'following', id: '7', targetId: '8', rules: { params: ['7'], allowed: { op: 'eq', field: 'id', value: { param: 0 } }, target: { op: 'ne', field: 'id', value: { param: 0 } } } },
  },
};

function typeOf(model: Model, name: string): ResourceType {
  return model.typesByName.get(name) as ResourceType;
}

/** As the engine names events (`post.created`, `user.following.added`). */
function eventType(plan: WritePlan): string {
  const type = plan.type.charAt(0).toLowerCase() + plan.type.slice(1);
  if (plan.kind === 'connect' || plan.kind === 'disconnect') return `${type}.${plan.field}.${plan.kind === 'connect' ? 'added' : 'removed'}`;
  return `${type}.${plan.kind}d`;
}

function inputFor(model: Model, dialect: keyof typeof DIALECTS, name: string): WriteInput {
  const { plan, columns = {}, precondition = false, releasesFiles = false, readBack } = CASES[name] as Case;
  const type = typeOf(model, plan.type);
  const id = plan.kind === 'create' ? String(columns['id']) : plan.id;
  const stored = new Map<string, SqlValue>();
  for (const [field, value] of Object.entries(columns)) {
    const found = type.fieldsByName.get(field);
    if (found === undefined || !('column' in found)) throw new Error(`${type.name}.${field} has no column`);
    stored.set(found.column, value);
  }
  const hooks = DIALECTS[dialect].sql;
  return {
    plan,
    type,
    id,
    columns: plan.kind === 'create' || plan.kind === 'update' ? stored : undefined,
    event: { id: 'evt_1', type: eventType(plan), recordId: id, principal: JSON.stringify(plan.actor ?? { id: null, role: null, via: 'system' }), record: null, previous: null, target: null, createdAt: NOW },
    now: NOW,
    guard: undefined,
    shard: DIALECTS[dialect].shard,
    precondition,
    releasesFiles,
    readBack:
      readBack === undefined
        ? undefined
        : (newId, source) => {
            const read = planReadOne(model, type.name, newId, readBack.map((field) => ({ key: field, field })), { limits: DEFAULT_LIMITS, fromText: false, principal: ADMIN });
            const compiled = compileRead(model, hooks, read, source);
            return { sql: compiled.sql, params: compiled.paramOrder.map((index) => read.params[index] as SqlValue) };
          },
  };
}

/**
 * A cascade's statements as the engine would run them for the root record
 * alone at every level (their number depends on the data; their texts do
 * not), in the order: find, then events, clears and files.
 */
function cascadeStatements(cascade: CompiledCascade, id: string): { readonly label: string; readonly statement: SqlStatement; readonly returnsRows: boolean }[] {
  const out: { label: string; statement: SqlStatement; returnsRows: boolean }[] = [];
  const batch = (type: string, action: string): CascadeEvents => ({ idPrefix: 'evt_2_', type: `${type}.${action}`, principal: '{"id":null,"role":null,"via":"system"}', createdAt: NOW });
  for (const [target, edges] of cascade.reach) {
    for (const edge of edges) {
      const relation = `${edge.type.name}.${edge.field.name} -> ${target} ${edge.field.onDelete}`;
      if (edge.field.onDelete === 'RESTRICT') out.push({ label: `restricting ${relation}`, statement: cascade.restricting(edge, [id]), returnsRows: true });
      else out.push({ label: `referrers ${relation}`, statement: cascade.referrers(edge, [id], 1001), returnsRows: true });
    }
  }
  for (const edges of cascade.reach.values()) {
    for (const edge of edges) {
      const name = edge.type.name.charAt(0).toLowerCase() + edge.type.name.slice(1);
      if (edge.field.onDelete === 'SET_NULL') {
        out.push({ label: `events ${edge.type.name} updated`, statement: cascade.events(edge.type, [id], batch(name, 'updated')), returnsRows: false });
        out.push({ label: `clear ${edge.type.name}.${edge.field.name}`, statement: cascade.clear(edge, [id], NOW), returnsRows: false });
        out.push({ label: `complete events ${edge.type.name}`, statement: cascade.completeEvents(edge.type, [id], 'evt_2_'), returnsRows: false });
      }
      if (edge.field.onDelete !== 'CASCADE') continue;
      out.push({ label: `events ${edge.type.name} deleted`, statement: cascade.events(edge.type, [id], batch(name, 'deleted')), returnsRows: false });
      const keys = cascade.fileKeys(edge.type, [id]);
      if (keys !== undefined) out.push({ label: `files ${edge.type.name} columns=${keys.columns.join(',')}`, statement: keys, returnsRows: true });
    }
  }
  return out;
}

function renderStep(step: WriteStep): string {
  if (step.step === 'precondition') return '-- precondition (the caller reads the record under the lock)\n';
  if (step.step === 'cascade') {
    return cascadeStatements(step.cascade, '7')
      .map(({ label, statement }) => `-- cascade: ${label}\n${statement.sql}\n-- params ${JSON.stringify(statement.params)}\n`)
      .join('');
  }
  const { step: kind, sql, params, ...rest } = step;
  const notes = Object.entries(rest).map(([key, value]) => ` ${key}=${String(value)}`).join('');
  return `-- ${kind}${notes}\n${sql}\n-- params ${JSON.stringify(params)}\n`;
}

function render(model: Model, name: string): string {
  let text = `-- plan\n${JSON.stringify(CASES[name]?.plan, null, 2)}\n`;
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const compiled = new WriteCompiler(model, DIALECTS[dialect]).compile(inputFor(model, dialect, name));
    text += `-- ${dialect}: ${compiled.transaction ? 'one transaction' : 'one statement, no transaction'}; clocks of ${JSON.stringify(compiled.tables)}\n`;
    text += compiled.steps.map(renderStep).join('');
  }
  return text;
}

describe('golden write statements per dialect', () => {
  let model: Model;
  beforeAll(async () => {
    model = await loadExampleModel();
    // A clock row starts at a random value (see compile-clock.ts): fixed here, so the params can be compared.
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
  for (const name of Object.keys(CASES)) {
    it(name, () => {
      const text = render(model, name);
      const file = `${GOLDEN_DIR}${name}.sql`;
      if (process.env['UPDATE_SNAPSHOTS'] === '1') {
        mkdirSync(GOLDEN_DIR, { recursive: true });
        writeFileSync(file, text);
      }
      expect(existsSync(file), `${file} is missing: run UPDATE_SNAPSHOTS=1 npm test and review it`).toBe(true);
      expect(text).toBe(readFileSync(file, 'utf8'));
    });
  }
});

describeEachDialect('the golden write statements are the drivers\'', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open());
  });
  afterAll(async () => {
    await server.close();
  });
  it('with the capabilities the driver declares', () => {
    expect(server.db.supports).toEqual(DIALECTS[server.db.dialect].supports);
  });
  for (const name of Object.keys(CASES)) {
    it(`${name} runs on the seeded database, statement by statement`, async () => {
      const compiled = new WriteCompiler(server.model, server.db).compile(inputFor(server.model, server.db.dialect, name));
      const ran: string[] = [];
      // Run, then rolled back: the data stays as seeded for the next case.
      const rolledBack = new Error('roll back');
      const outcome = await server.db
        .transaction(async (tx) => {
          for (const step of compiled.steps) {
            if (step.step === 'precondition') continue;
            if (step.step === 'cascade') {
              for (const { statement, returnsRows } of cascadeStatements(step.cascade, '7')) {
                if (returnsRows) await tx.all(statement.sql, statement.params);
                else await tx.run(statement.sql, statement.params);
              }
              ran.push(step.step);
              continue;
            }
            const params = [...step.params];
            if (step.step === 'event' && step.previousParam !== undefined) params[step.previousParam] = null;
            // As the engine runs them: the statements that return no rows through `run`.
            if (step.step === 'lock' || step.step === 'apply' || step.step === 'event') await tx.run(step.sql, params);
            else await tx.all(step.sql, params);
            ran.push(step.step);
          }
          throw rolledBack;
        })
        .catch((error: unknown) => error);
      expect(outcome).toBe(rolledBack);
      expect(ran).toEqual(compiled.steps.filter((step) => step.step !== 'precondition').map((step) => step.step));
    });
  }
});
