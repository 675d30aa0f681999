import { expect, it } from 'vitest';
import { loadSchema } from '../schema/load-schema.js';
import type { StoredEvent } from '../storage/outbox.js';
import { compileEndpoints, patternMatches } from './webhook-endpoints.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const loaded = loadSchema([
  { file: 't.graphql', text: 'type User { id: ID! name: String! following: [User!]! }  type Post { id: ID! title: String! views: Int! author: User! }' },
]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const model = loaded.model;

const event = (type: string, record: object | null, previous: object | null = null): StoredEvent => ({
  seq: 1,
  id: 'evt_1',
  type,
  recordId: '1',
  principal: '{}',
  record: record === null ? null : JSON.stringify(record),
  previous: previous === null ? null : JSON.stringify(previous),
  target: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  published: 1,
});

it('matches types exactly, by prefix with .*, or all with *', () => {
  expect(patternMatches('user.*', 'user.following.added')).toBe(true);
  expect(patternMatches('user.*', 'userProfile.created')).toBe(false);
  expect(patternMatches('*', 'post.deleted')).toBe(true);
  expect(patternMatches('post.created', 'post.updated')).toBe(false);
});

it('refuses patterns that match nothing and filters on fields a covered type lacks, all at once, with suggestions', () => {
  expect(() =>
    compileEndpoints(model, [
      { name: 'a', url: 'http://x', events: ['post.craeted'], secret: SECRET },
      { name: 'b', url: 'http://x', events: ['*'], filter: { title: { eq: 'x' } }, secret: SECRET },
      { name: 'c', url: 'http://x', events: ['post.*'], secret: 'whsec_!!!' },
    ]),
  ).toThrow(/"post\.craeted" matches no event type; did you mean "post\.created"\?[\s\S]*its filter does not apply to User events[\s\S]*not a Standard Webhooks secret/);
});

it('an endpoint wants an event when a pattern matches and its filter holds on the record (a delete: on previous)', () => {
  const [popular] = compileEndpoints(model, [{ name: 'p', url: 'http://x', events: ['post.*'], filter: { views: { gte: 100 }, title: { startsWith: 'A' } }, secret: SECRET }]);
  expect(popular?.wants(event('post.created', { title: 'Ace', views: 150 }))).toBe(true);
  expect(popular?.wants(event('post.created', { title: 'Ace', views: 99 }))).toBe(false);
  expect(popular?.wants(event('post.deleted', null, { title: 'Ace', views: 100 }))).toBe(true);
  expect(popular?.wants(event('user.created', { name: 'Ace' }))).toBe(false);
});

it('an endpoint set up before a rename (@renamed) keeps its old event names: it wants the events and is sent them under the name it asked by', () => {
  const renamed = loadSchema([
    {
      file: 't.graphql',
      text: 'type Member @renamed(from: "User") { id: ID! name: String! fans: [Member!]! @renamed(from: "following") }  type Post { id: ID! title: String! views: Int! author: Member! }',
    },
  ]);
  if (!renamed.ok) throw new Error(JSON.stringify(renamed.problems));
  const [old, both, current] = compileEndpoints(renamed.model, [
    { name: 'old', url: 'http://x', events: ['user.created', 'user.following.added'], filter: { name: { eq: 'Ada' } }, secret: SECRET },
    { name: 'both', url: 'http://x', events: ['user.*', 'member.created'], secret: SECRET },
    { name: 'current', url: 'http://x', events: ['member.*'], secret: SECRET },
  ]);
  expect(old?.wants(event('member.created', { name: 'Ada' }))).toBe(true);
  expect(old?.wants(event('member.created', { name: 'Bo' }))).toBe(false);
  expect(old?.wants(event('member.updated', { name: 'Ada' }))).toBe(false);
  expect(old?.typeFor('member.created')).toBe('user.created');
  expect(old?.typeFor('member.fans.added')).toBe('user.following.added');
  expect(old?.deprecations.map((use) => use.coordinate)).toEqual(['Member.following', 'User']);
  // A name a pattern also gives by its new name is sent under that one.
  expect(both?.typeFor('member.created')).toBe('member.created');
  expect(both?.typeFor('member.deleted')).toBe('user.deleted');
  expect(current?.typeFor('member.created')).toBe('member.created');
  expect(current?.deprecations).toEqual([]);
  expect(() => compileEndpoints(renamed.model, [{ name: 'typo', url: 'http://x', events: ['usr.created'], secret: SECRET }])).toThrow(/"usr\.created" matches no event type/);
});
