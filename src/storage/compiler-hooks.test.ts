/**
 * The SqlCompilerHooks of both dialects, run against real databases: each
 * assertion compares with one expected text, the same for SQLite and
 * PostgreSQL, so passing on both proves the dialects build byte-identical
 * JSON for the same rows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { encodeCursor } from '../plan/cursor.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database, JsonMember, SqlCompilerHooks } from './dialect.js';
import { migrate } from './migrate/migrate.js';

const SDL = `
  type Thing {
    id: ID!
    name: String
    count: Int
    ratio: Float
    flag: Boolean
    at: DateTime
    data: JSON
    tags: [String!]
    parts: [Part!]!
  }
  type Part {
    id: ID!
    thing: Thing!
    rank: Int!
  }
`;

const loaded = loadSchema([{ file: 'things.graphql', text: SDL }]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const model = loaded.model;

/** Hooks the compiler may use beyond the contract (see the driver report). */
type Hooks = SqlCompilerHooks & { jsonFloat(expr: string): string };

const TRICKY = 'quote " backslash \\ newline \n tab \t bell \u0007 slash / é 漢 😀';

describeEachDialect('compiler hooks', (ctx) => {
  let db: Database;
  let h: Hooks;

  beforeAll(async () => {
    db = await ctx.open({ model });
    h = db.sql;
    await migrate(db, model);
    const p = (n: number): string => h.placeholder(n);
    const insert = `INSERT INTO things (id, name, count, ratio, flag, at, data, tags) VALUES (${[0, 1, 2, 3, 4, 5, 6, 7].map(p).join(', ')})`;
    await db.run(insert, ['a', TRICKY, 42, 10, true, '2024-02-29T12:34:56.789Z', '{"z":1,"a":[true,null,"x"],"m":{"k":2.5}}', '["x","y"]']);
    await db.run(insert, ['b', null, null, 0.1, false, null, null, null]);
    await db.run(insert, ['c', '100%_done', -7, 123456789.125, null, '1999-12-31T23:59:59.000Z', '[]', '[]']);
    for (const [id, thing, rank] of [['p1', 'a', 1], ['p2', 'a', 3], ['p3', 'a', 2]] as const) {
      await db.run(`INSERT INTO parts (id, thing_id, rank) VALUES (${p(0)}, ${p(1)}, ${p(2)})`, [id, thing, rank]);
    }
  });

  afterAll(async () => {
    await db.close();
  });

  const thingJson = (alias: string): string =>
    h.jsonObject([
      ['id', `${alias}.id`],
      ['name', `${alias}.name`],
      ['count', `${alias}.count`],
      ['ratio', h.jsonFloat(`${alias}.ratio`)],
      ['flag', h.jsonBoolean(`${alias}.flag`)],
      ['at', `${alias}.at`, 'timestamp'],
      ['data', h.jsonValue(`${alias}.data`), 'json'],
      ['tags', h.jsonValue(`${alias}.tags`), 'json'],
      ['kind', `'thing'`],
      ['parts', list([['id', 'p.id'], ['rank', 'p.rank']], `FROM parts p WHERE p.thing_id = ${alias}.id`, 'p.rank', 'd.k DESC'), 'embedded'],
    ]);

  /** `jsonArray` of the rows `from` selects, put in `order` on their `key` (d.k). */
  const list = (members: JsonMember[], from: string, key: string, order = 'd.k'): string =>
    h.jsonArray({ members, rows: (element) => `SELECT ${element} AS j, ${key} AS k ${from}`, derived: 'd', order });

  it('builds the same JSON object text for the same row', async () => {
    const rows = await db.all<{ j: string }>(`SELECT ${thingJson('t')} AS j FROM things t ORDER BY t.id`);
    expect(rows.map((row) => row.j)).toEqual([
      `{"id":"a","name":${JSON.stringify(TRICKY)},"count":42,"ratio":10,"flag":true,"at":"2024-02-29T12:34:56.789Z",` +
        `"data":{"z":1,"a":[true,null,"x"],"m":{"k":2.5}},"tags":["x","y"],"kind":"thing",` +
        `"parts":[{"id":"p2","rank":3},{"id":"p3","rank":2},{"id":"p1","rank":1}]}`,
      `{"id":"b","name":null,"count":null,"ratio":0.1,"flag":false,"at":null,"data":null,"tags":null,"kind":"thing","parts":[]}`,
      `{"id":"c","name":"100%_done","count":-7,"ratio":123456789.125,"flag":null,"at":"1999-12-31T23:59:59.000Z",` +
        `"data":[],"tags":[],"kind":"thing","parts":[]}`,
    ]);
  });

  it('the text is what JSON.stringify writes for the parsed value', async () => {
    const rows = await db.all<{ j: string }>(`SELECT ${thingJson('t')} AS j FROM things t ORDER BY t.id`);
    for (const row of rows) expect(JSON.stringify(JSON.parse(row.j))).toBe(row.j);
  });

  it('writes a timestamp member, null included, the same in a narrow object as in a wide one', async () => {
    const rows = await db.all<{ j: string }>(`SELECT ${h.jsonObject([['at', 't.at', 'timestamp'], ['id', 't.id']])} AS j FROM things t ORDER BY t.id`);
    expect(rows.map((row) => row.j)).toEqual(['{"at":"2024-02-29T12:34:56.789Z","id":"a"}', '{"at":null,"id":"b"}', '{"at":"1999-12-31T23:59:59.000Z","id":"c"}']);
  });

  it('gathers whole objects into an ordered array, [] when there are none, embedded in an object', async () => {
    const inObject = (array: string): string => h.jsonObject([['a', array, 'embedded']]);
    const [row] = await db.all<{ j: string }>(`SELECT ${inObject(list([['id', 't.id']], 'FROM things t', 't.id'))} AS j`);
    expect(row?.j).toBe('{"a":[{"id":"a"},{"id":"b"},{"id":"c"}]}');
    const [none] = await db.all<{ j: string }>(`SELECT ${inObject(list([['id', 't.id']], `FROM things t WHERE t.id = 'zzz'`, 't.id'))} AS j`);
    expect(none?.j).toBe('{"a":[]}');
  });

  it("keeps a page's own order when given none, as a page with a limit leaves it", async () => {
    const page = h.jsonArray({
      members: [['id', 't.id']],
      rows: (element) => `SELECT ${element} AS j FROM things t ORDER BY t.id DESC LIMIT ${h.placeholder(0)}`,
      derived: 'd',
      order: '',
    });
    const [row] = await db.all<{ j: string }>(`SELECT ${page} AS j`, [2]);
    expect(row?.j).toBe('[{"id":"c"},{"id":"b"}]');
  });

  it('writes each element as jsonObject writes it alone, for objects of every width, of one nested member, and of none', async () => {
    const shapes: JsonMember[][] = [
      [['name', 't.name']],
      [['id', 't.id'], ['at', 't.at', 'timestamp']],
      [['id', 't.id'], ['name', 't.name'], ['count', 't.count'], ['flag', h.jsonBoolean('t.flag')], ['at', 't.at', 'timestamp'], ['data', h.jsonValue('t.data'), 'json']],
      Array.from({ length: 150 }, (_, i): JsonMember => [`k${i}%s`, i % 2 === 0 ? 't.name' : 't.count']),
      [['parts', list([['id', 'p.id']], 'FROM parts p WHERE p.thing_id = t.id', 'p.id'), 'embedded']],
      [],
    ];
    for (const members of shapes) {
      const alone = await db.all<{ j: string }>(`SELECT ${h.jsonObject(members)} AS j FROM things t ORDER BY t.id`);
      const [row] = await db.all<{ j: string }>(`SELECT ${list(members, 'FROM things t', 't.id')} AS j`);
      expect(row?.j).toBe(`[${alone.map((object) => object.j).join(',')}]`);
    }
  });

  it('embeds a to-one subquery object as an object, and a missing one as null', async () => {
    const object = h.jsonObject([
      ['id', 'p.id'],
      ['thing', `coalesce((SELECT ${h.jsonObject([['id', 't.id'], ['flag', h.jsonBoolean('t.flag')]])} FROM things t WHERE t.id = p.thing_id), 'null')`, 'embedded'],
      ['missing', `coalesce((SELECT ${h.jsonObject([['id', 't.id']])} FROM things t WHERE t.id = 'nope'), 'null')`, 'embedded'],
    ]);
    const rows = await db.all<{ j: string }>(`SELECT ${object} AS j FROM parts p ORDER BY p.id`);
    expect(rows[0]?.j).toBe('{"id":"p1","thing":{"id":"a","flag":true},"missing":null}');
  });

  it('splices nested JSON in any position, beside values that end in a brace, in objects of any width', async () => {
    const parts = list([['id', 'p.id']], 'FROM parts p WHERE p.thing_id = t.id', 'p.id');
    const object = h.jsonObject([
      ['first', parts, 'embedded'],
      ['data', h.jsonValue('t.data'), 'json'],
      ['again', parts, 'embedded'],
      ['brace', `'ends}'`],
      ['tags', h.jsonValue('t.tags'), 'json'],
      ['data2', h.jsonValue('t.data'), 'json'],
      ['last', parts, 'embedded'],
    ]);
    const rows = await db.all<{ j: string }>(`SELECT ${object} AS j FROM things t ORDER BY t.id`);
    const data = [{ z: 1, a: [true, null, 'x'], m: { k: 2.5 } }, null, []];
    const tags = [['x', 'y'], null, []];
    const partsOf = [[{ id: 'p1' }, { id: 'p2' }, { id: 'p3' }], [], []];
    expect(rows.map((row) => row.j)).toEqual(
      [0, 1, 2].map((i) =>
        JSON.stringify({ first: partsOf[i], data: data[i], again: partsOf[i], brace: 'ends}', tags: tags[i], data2: data[i], last: partsOf[i] }),
      ),
    );

    // 600 members: more than one call takes, a JSON column's object where a
    // run of 499 ends, and nested JSON in between.
    const wide: JsonMember[] = Array.from({ length: 600 }, (_, i) => [`f${i}`, String(i)]);
    wide[300] = ['f300', parts, 'embedded'];
    wide[498] = ['f498', h.jsonValue('t.data'), 'json'];
    const [first] = await db.all<{ j: string }>(`SELECT ${h.jsonObject(wide)} AS j FROM things t WHERE t.id = 'a'`);
    const expected: Record<string, unknown> = Object.fromEntries(wide.map(([key, value]) => [key, Number(value)]));
    expected.f300 = partsOf[0];
    expected.f498 = data[0];
    expect(first?.j).toBe(JSON.stringify(expected));
  });

  it('handles keys too long for an identifier and objects wider than one function call allows', async () => {
    const longKey = `k${'x'.repeat(80)}`;
    const wide: [string, string][] = Array.from({ length: 600 }, (_, i) => [`f${i}`, String(i)]);
    const [row] = await db.all<{ a: string; b: string }>(
      `SELECT ${h.jsonObject([[longKey, `'v'`], ['short', '1']])} AS a, ${h.jsonObject(wide)} AS b`,
    );
    expect(row?.a).toBe(`{"${longKey}":"v","short":1}`);
    expect(row?.b).toBe(JSON.stringify(Object.fromEntries(wide.map(([key, value]) => [key, Number(value)]))));
  });

  it('writes keys holding % or quotes as they are, in narrow and wide objects', async () => {
    const keys = ['100%', '%s', '%%', "it's", 'a"b', '%1$s'];
    const narrow = keys.slice(0, 2).map((key): [string, string] => [key, `'v'`]);
    const wide = keys.map((key, i): [string, string] => [key, String(i)]);
    const [row] = await db.all<{ a: string; b: string }>(`SELECT ${h.jsonObject(narrow)} AS a, ${h.jsonObject(wide)} AS b`);
    expect(row?.a).toBe('{"100%":"v","%s":"v"}');
    expect(row?.b).toBe(JSON.stringify(Object.fromEntries(wide.map(([key, value]) => [key, Number(value)]))));
  });

  it('contains and startsWith treat % and _ literally', async () => {
    const ids = async (where: string, value: string): Promise<string[]> =>
      (await db.all<{ id: string }>(`SELECT id FROM things WHERE ${where} ORDER BY id`, [value])).map((row) => row.id);
    expect(await ids(h.contains('name', h.placeholder(0)), '%_')).toEqual(['c']);
    expect(await ids(h.contains('name', h.placeholder(0)), '_')).toEqual(['c']);
    expect(await ids(h.contains('name', h.placeholder(0)), 'backslash \\')).toEqual(['a']);
    expect(await ids(h.startsWith('name', h.placeholder(0)), '100%')).toEqual(['c']);
    expect(await ids(h.startsWith('name', h.placeholder(0)), '%')).toEqual([]);
    expect(await ids(h.startsWith('name', h.placeholder(0)), '')).toEqual(['a', 'c']);
    expect(await ids(h.contains('name', h.placeholder(0)), 'QUOTE')).toEqual([]);
  });

  it('concatenates text, numbers and parameters; null propagates', async () => {
    const rows = await db.all<{ v: string | null }>(
      `SELECT ${h.concat([`'/files/'`, 't.name', `'/'`, h.placeholder(0)])} AS v FROM things t WHERE t.id IN ('b', 'c') ORDER BY t.id`,
      [64],
    );
    expect(rows.map((row) => row.v)).toEqual([null, '/files/100%_done/64']);
  });

  it('cursorHex writes what encodeCursor writes', async () => {
    const order = [{ field: 'at', direction: 'desc' as const }, { field: 'id', direction: 'asc' as const }];
    const [row] = await db.all<{ c: string }>(
      `SELECT ${h.cursorHex([`'-at,id'`, h.jsonTimestamp('t.at'), 't.id'])} AS c FROM things t WHERE t.id = 'a'`,
    );
    expect(row?.c).toBe(encodeCursor(order, ['2024-02-29T12:34:56.789Z', 'a']));
  });
});
