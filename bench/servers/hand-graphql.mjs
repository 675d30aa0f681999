// The GraphQL yardstick: a hand-written Fastify + mercurius server (graphql-jit
// after the first run of a query, loaders batching every relation of a
// request into one statement, automatic persisted queries), over
// better-sqlite3 or pg — the same data access as the REST yardstick.
//
// With `--batched`, the SQLite loaders answer every parent with one statement
// too (on PostgreSQL they always do): the issue 28 yardstick for W5.
//
//   node servers/hand-graphql.mjs --port 4000 --db <sqlite file | postgres://…> [--batched]

import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { GraphQLScalarType } from 'graphql';
import mercurius from 'mercurius';
import { closeOnSignal, openData } from './open-data.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' }, db: { type: 'string' }, batched: { type: 'boolean', default: false } } });
const { data, close } = openData(values.db, { batched: values.batched });

const schema = `
  scalar JSON
  type User {
    id: ID!
    name: String!
    email: String!
    username: String
    profilePicture: String
    bio: String
    pronouns: String
    location: String
    website: String
    company: String
    jobTitle: String
    phone: String
    birthday: String
    timezone: String
    locale: String
    role: String!
    isVerified: Boolean!
    isPrivate: Boolean!
    emailNotifications: Boolean!
    theme: String!
    interests: [String!]
    preferences: JSON
    suspendedReason: String
    lastSeenAt: String
    handle: String
    createdAt: String!
    updatedAt: String!
    posts(first: Int = 20, newestFirst: Boolean = false): [Post!]!
    followers(first: Int = 20): [User!]!
  }
  type Post {
    id: ID!
    title: String!
    body: String!
    authorId: ID!
    status: String!
    publishedAt: String
    tags: [String!]
    cover: String
    createdAt: String!
    updatedAt: String!
  }
  type Query {
    user(id: ID!): User
    users(first: Int = 20, after: ID): [User!]!
  }
`;

const capped = (first) => Math.min(Math.max(first ?? 20, 0), 100);

const resolvers = {
  JSON: new GraphQLScalarType({ name: 'JSON', serialize: (value) => value }),
  Query: {
    user: (_root, { id }) => data.user(id),
    users: (_root, { first, after }) => data.users(capped(first), after ?? undefined),
  },
  Post: {
    authorId: (post) => post.author,
  },
};

/** A loader answering every parent of one request with one statement per distinct set of arguments. */
const batched = (load) => async (queries) => {
  const groups = new Map();
  for (const [index, { obj, params }] of queries.entries()) {
    const key = JSON.stringify(params);
    const group = groups.get(key) ?? { params, ids: [], indexes: [] };
    group.ids.push(obj.id);
    group.indexes.push(index);
    groups.set(key, group);
  }
  const out = new Array(queries.length);
  for (const { params, ids, indexes } of groups.values()) {
    const results = await load(ids, params);
    indexes.forEach((at, i) => {
      out[at] = results[i];
    });
  }
  return out;
};

const loaders = {
  User: {
    posts: batched((ids, { first, newestFirst }) => data.postsOfMany(ids, capped(first), newestFirst === true)),
    followers: batched((ids, { first }) => data.followersOfMany(ids, capped(first))),
  },
};

const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
await app.register(mercurius, {
  schema,
  resolvers,
  loaders,
  jit: 1,
  graphiql: false,
  persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(),
});
await app.listen({ port: Number(values.port), host: '127.0.0.1' });
closeOnSignal(app, close);
