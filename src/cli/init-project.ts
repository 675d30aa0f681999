import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FILES_DIRECTORY } from '../files/file-service.js';
import { configTemplate } from './config/config-template.js';
import { CONFIG_FILE } from './config/read-config-file.js';

export const STARTER_SCHEMA_FILE = 'schema.graphql';

/** What `diglot init` wrote, for its summary. */
export interface InitResult {
  readonly written: readonly string[];
  /** `.gitignore` lines added (those already there are kept, not repeated). */
  readonly ignored: readonly string[];
}

/** A file `init` would overwrite: it never does. */
export class InitRefusedError extends Error {}

const IGNORED = ['*.db', '*.db-wal', '*.db-shm', '*.db.secret', `${DEFAULT_FILES_DIRECTORY.split('/')[0] ?? '.diglot'}/`];

/**
 * Starts a project in `directory`: a small commented schema, a
 * configuration file with every option at its default, and `.gitignore`
 * lines for the database and uploaded files. Refuses, writing nothing, when
 * the schema or the configuration file is already there.
 */
export function initProject(directory: string): InitResult {
  const schemaPath = join(directory, STARTER_SCHEMA_FILE);
  const configPath = join(directory, CONFIG_FILE);
  const existing = [schemaPath, configPath].filter((path) => existsSync(path));
  if (existing.length > 0) {
    throw new InitRefusedError(`${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}; init writes nothing over your files`);
  }
  writeFileSync(schemaPath, STARTER_SCHEMA, { flag: 'wx' });
  writeFileSync(configPath, configTemplate({ schema: [STARTER_SCHEMA_FILE] }), { flag: 'wx' });
  const gitignorePath = join(directory, '.gitignore');
  const present = existsSync(gitignorePath) ? readFileSync(gitignorePath, 'utf8') : '';
  const lines = new Set(present.split(/\r?\n/).map((line) => line.trim()));
  const missing = IGNORED.filter((line) => !lines.has(line));
  if (missing.length > 0) {
    const lead = present === '' || present.endsWith('\n') ? '' : '\n';
    writeFileSync(gitignorePath, `${present}${lead}# Diglot: the database, its secret and uploaded files\n${missing.join('\n')}\n`);
  }
  return { written: [STARTER_SCHEMA_FILE, CONFIG_FILE, ...(missing.length > 0 ? ['.gitignore'] : [])], ignored: missing };
}

/** The starting model: two types, a relation, accounts, a file field and rules showing the common cases, each directive explained once. */
export const STARTER_SCHEMA = `# Your data model, in GraphQL SDL. Diglot serves it as REST (/members, /notes)
# and GraphQL (/graphql) at once. Change it and restart: the database follows
# (\`npx diglot migrate --dry-run\` shows what would change first).
# Every directive: docs/schema.md; the rules: docs/rules.md.

"""
Someone who uses the app. @account makes it the type people sign up and sign
in as (POST /auth/sign-up with a password, then POST /auth/sign-in); Diglot
keeps the password hashed, outside the record, and signs the tokens itself.
@allow says who may do what: anyone may read a profile and sign up; members
change and delete only themselves.
"""
type Member
  @account(identifier: "email")
  @allow(read: "true", create: "true", update: "id == auth.id", delete: "id == auth.id") {
  "Opaque, URL-safe, made by the server."
  id: ID!
  name: String!
  "Signed in with; private: readable by the member themself (and admins) only."
  email: String! @unique @allow(read: "id == auth.id")
  "An image field: upload once, ask for any of these widths."
  avatar(size: Int): String @image(sizes: [64, 256])
  "Only admins change roles: \\"false\\" allows nobody else."
  role: Role! @default(value: MEMBER) @allow(write: "false")
  "The inverse of Note.author: /members/<id>/notes."
  notes: [Note!]!
  createdAt: DateTime! @createdAt
  updatedAt: DateTime! @updatedAt
}

"Roles come from your own enum; @roles names the one that may do everything."
enum Role @roles(admin: "ADMIN") {
  MEMBER
  ADMIN
}

"""
A note. Public notes are for everyone, private ones for their author; only a
signed-in member writes one, as its author (@default(fromAuth:)).
"""
type Note
  @index(fields: ["author", "createdAt"])
  @allow(
    read: "isPublic || author == auth.id"
    create: "author == auth.id"
    update: "author == auth.id"
    delete: "author == auth.id"
  ) {
  id: ID!
  title: String!
  body: String
  isPublic: Boolean! @default(value: false)
  "Set from the token; the create rule refuses a note in someone else's name."
  # A member who deletes themself takes their notes along (without onDelete, a
  # member with notes could not be deleted: RESTRICT is the default).
  author: Member! @default(fromAuth: "id") @relation(onDelete: CASCADE)
  createdAt: DateTime! @createdAt
  updatedAt: DateTime! @updatedAt
}
`;
