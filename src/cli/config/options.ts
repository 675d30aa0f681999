import { isIP } from 'node:net';
import { DEFAULT_FILES_DIRECTORY } from '../../files/file-service.js';
import { DEFAULT_RATE_LIMITS } from '../../server/rate-limits.js';
import { normaliseOrigin } from '../../server/cross-site-guard.js';
import { hostnameOf, publicUrlHost } from '../../server/host-guard.js';
import { budget, flag, integer, list, oneOf, port, text } from './option-kinds.js';
import type { OptionSpec } from './option-spec.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every option, once: the command line, the environment, the configuration
 * file, `--help`, docs/configuration.md's table and `diglot init`'s template all come
 * from this table, so none of them can forget one.
 */
export const OPTIONS = {
  schema: {
    key: 'schema',
    flag: '--schema',
    short: '-s',
    env: ['DIGLOT_SCHEMA'],
    kind: list('<files>'),
    default: undefined,
    description: 'GraphQL SDL file(s); without it, ./schema.graphql',
    path: true,
  },
  db: {
    key: 'db',
    flag: '--db',
    short: '-d',
    env: ['DIGLOT_DB', 'DATABASE_URL'],
    kind: text('<path|url>'),
    default: 'diglot.db',
    description: 'SQLite file path or postgres:// URL',
    path: true,
  },
  files: {
    key: 'files',
    flag: '--files',
    env: ['DIGLOT_FILES'],
    kind: text('<dir>'),
    default: DEFAULT_FILES_DIRECTORY,
    description: 'directory for uploaded files and their resized variants',
    path: true,
  },
  filesAccess: {
    key: 'filesAccess',
    flag: '--files-access',
    env: ['DIGLOT_FILES_ACCESS'],
    kind: oneOf('<who>', ['public', 'readers'] as const),
    default: 'public',
    description: 'who may fetch /files/<key>: public (anyone with the URL; cached a year) or readers (callers who may read a record holding the file)',
  },
  port: {
    key: 'port',
    flag: '--port',
    short: '-p',
    env: ['DIGLOT_PORT', 'PORT'],
    kind: port,
    default: 4000,
    description: 'port to listen on',
  },
  host: {
    key: 'host',
    flag: '--host',
    short: '-H',
    env: ['DIGLOT_HOST', 'HOST'],
    kind: text('<host>'),
    default: '127.0.0.1',
    description: 'interface to listen on (0.0.0.0 for every one)',
  },
  logLevel: {
    key: 'logLevel',
    flag: '--log-level',
    env: ['DIGLOT_LOG_LEVEL', 'LOG_LEVEL'],
    kind: oneOf('<level>', LOG_LEVELS),
    default: 'info',
    description: 'least important log lines written: fatal, error, warn, info (one line per request), debug, trace or silent',
  },
  queryTimeout: {
    key: 'queryTimeout',
    flag: '--query-timeout',
    env: ['DIGLOT_QUERY_TIMEOUT'],
    kind: integer('<ms>', 0, 3_600_000, 'milliseconds'),
    default: 5000,
    description: 'time budget of one SQL statement; past it the request answers 503 QUERY_TIMEOUT (0: none)',
  },
  requireIfMatch: {
    key: 'requireIfMatch',
    flag: '--require-if-match',
    env: ['DIGLOT_REQUIRE_IF_MATCH'],
    kind: flag,
    default: false,
    description: 'answer 428 to REST writes sent without If-Match (lost-update protection)',
  },
  rateLimitAnonymous: {
    key: 'rateLimitAnonymous',
    flag: '--rate-limit-anonymous',
    env: ['DIGLOT_RATE_LIMIT_ANONYMOUS'],
    kind: budget,
    default: DEFAULT_RATE_LIMITS.anonymous,
    description: 'budget of each client address without credentials: points a window/the window in seconds, or off',
  },
  rateLimitMember: {
    key: 'rateLimitMember',
    flag: '--rate-limit-member',
    env: ['DIGLOT_RATE_LIMIT_MEMBER'],
    kind: budget,
    default: DEFAULT_RATE_LIMITS.member,
    description: 'budget of each signed-in principal or API key: points a window/the window in seconds, or off',
  },
  rateLimitExchange: {
    key: 'rateLimitExchange',
    flag: '--rate-limit-exchange',
    env: ['DIGLOT_RATE_LIMIT_EXCHANGE'],
    kind: integer('<ms>', 10, 60_000, 'milliseconds'),
    default: 1000,
    description: 'on PostgreSQL, how often each instance trades its rate-limit counts with the others (one statement); a client can overspend by what it sends in about two of these',
  },
  persistedDocuments: {
    key: 'persistedDocuments',
    flag: '--persisted-documents',
    env: ['DIGLOT_PERSISTED_DOCUMENTS'],
    kind: text('<file>'),
    default: undefined,
    description: 'trusted GraphQL documents: a JSON map of sha256 → query, or an Apollo manifest',
    path: true,
  },
  onlyPersisted: {
    key: 'onlyPersisted',
    flag: '--only-persisted',
    env: ['DIGLOT_ONLY_PERSISTED'],
    kind: flag,
    default: false,
    description: 'accept only the trusted documents on /graphql',
  },
  corsOrigin: {
    key: 'corsOrigin',
    flag: '--cors-origin',
    env: ['DIGLOT_CORS_ORIGIN'],
    kind: list('<origins>', originProblem),
    default: undefined,
    description: 'origins whose pages may call the API from a browser (https://app.example.com, comma-separated), or * for any page',
  },
  publicUrl: {
    key: 'publicUrl',
    flag: '--public-url',
    env: ['DIGLOT_PUBLIC_URL'],
    kind: text('<url>', publicUrlProblem),
    default: undefined,
    description: 'where clients reach the server (https://api.example.com): requests must name its host (or an allowed one, an IP address, localhost), else 421',
  },
  allowedHosts: {
    key: 'allowedHosts',
    flag: '--allowed-hosts',
    env: ['DIGLOT_ALLOWED_HOSTS'],
    kind: list('<hosts>', allowedHostProblem),
    default: undefined,
    description: 'more Host names the server answers to (api.example.com, .example.com for subdomains, comma-separated; * for any): against DNS rebinding',
  },
  trustProxy: {
    key: 'trustProxy',
    flag: '--trust-proxy',
    env: ['DIGLOT_TRUST_PROXY'],
    kind: list('<addresses>', proxyProblem),
    default: undefined,
    description: 'reverse proxies in front of the server (10.0.0.0/8, 127.0.0.1, loopback; comma-separated): their X-Forwarded-For names the client',
  },
  allowOpenWrites: {
    key: 'allowOpenWrites',
    flag: '--allow-open-writes',
    env: ['DIGLOT_ALLOW_OPEN_WRITES'],
    kind: flag,
    default: false,
    description: 'serve a schema without @allow rules (anyone may change anything) on an address other than loopback',
  },
  allowBreaking: {
    key: 'allowBreaking',
    flag: '--allow-breaking',
    env: ['DIGLOT_ALLOW_BREAKING'],
    kind: flag,
    default: false,
    description:
      'apply a schema with breaking changes for clients (compared with the schema last applied to the database; `diglot diff` lists them); separate from --allow-destructive, which is about data loss',
  },
  adminKey: {
    key: 'adminKey',
    flag: '--admin-key',
    env: ['DIGLOT_ADMIN_KEY'],
    kind: text('<key>', minimumLength(32, 'an admin key')),
    default: undefined,
    description: 'a request sent with Authorization: Bearer <this> acts as the admin role (32 characters or more; prefer the environment: a flag shows in ps)',
    secret: true,
  },
  jwtSecret: {
    key: 'jwtSecret',
    flag: '--jwt-secret',
    env: ['DIGLOT_JWT_SECRET'],
    kind: text('<secret>', minimumLength(32, 'a JWT secret')),
    default: undefined,
    description: 'accept HS256/384/512 tokens signed with this secret (32 bytes or more; prefer the environment: a flag shows in ps)',
    secret: true,
  },
  jwtPublicKey: {
    key: 'jwtPublicKey',
    flag: '--jwt-public-key',
    env: ['DIGLOT_JWT_PUBLIC_KEY'],
    kind: text('<file>'),
    default: undefined,
    description: 'accept RS/PS/ES/EdDSA tokens signed by the key in this file (PEM or JWK)',
    path: true,
  },
  jwksUrl: {
    key: 'jwksUrl',
    flag: '--jwks-url',
    env: ['DIGLOT_JWKS_URL'],
    kind: text('<url>', (value) => (URL.canParse(value) ? undefined : `must be a URL, got ${JSON.stringify(value)}`)),
    default: undefined,
    description: "accept RS/PS/ES/EdDSA tokens signed by a key of this JWKS (your identity provider's)",
  },
  jwtIssuer: {
    key: 'jwtIssuer',
    flag: '--jwt-issuer',
    env: ['DIGLOT_JWT_ISSUER'],
    kind: text('<iss>'),
    default: undefined,
    description: 'accept only tokens with this iss',
  },
  jwtAudience: {
    key: 'jwtAudience',
    flag: '--jwt-audience',
    env: ['DIGLOT_JWT_AUDIENCE'],
    kind: text('<aud>'),
    default: undefined,
    description: 'accept only tokens with this aud',
  },
  jwtIdClaim: {
    key: 'jwtIdClaim',
    flag: '--jwt-id-claim',
    env: ['DIGLOT_JWT_ID_CLAIM'],
    kind: text('<path>'),
    default: 'sub',
    description: "the claim holding the principal's id (a dotted path)",
  },
  jwtRoleClaim: {
    key: 'jwtRoleClaim',
    flag: '--jwt-role-claim',
    env: ['DIGLOT_JWT_ROLE_CLAIM'],
    kind: text('<path>'),
    default: 'role',
    description: "the claim holding the principal's role (a dotted path, such as app_metadata.role)",
  },
  signingKeyFile: {
    key: 'signingKeyFile',
    flag: '--signing-key-file',
    env: ['DIGLOT_SIGNING_KEY_FILE'],
    kind: text('<file>'),
    default: undefined,
    description: "the private key (PEM) Diglot signs its accounts' access tokens with, its public half served at /.well-known/jwks.json; without it, DIGLOT_JWT_SECRET or keys kept in the database",
    path: true,
  },
} as const satisfies Readonly<Record<string, OptionSpec<unknown>>>;

export type OptionKey = keyof typeof OPTIONS;

/** `*` alone, or origins as browsers send them (scheme://host[:port]); checked before anything starts. */
function originProblem(value: string): string | undefined {
  if (value === '*') return undefined;
  try {
    normaliseOrigin(value);
    return undefined;
  } catch {
    return `${JSON.stringify(value)} is not an origin (scheme://host[:port], nothing after it), nor *`;
  }
}

function publicUrlProblem(value: string): string | undefined {
  try {
    publicUrlHost(value);
    return undefined;
  } catch {
    return `${JSON.stringify(value)} is not an http(s) URL such as https://api.example.com`;
  }
}

function allowedHostProblem(value: string): string | undefined {
  if (value === '*') return undefined;
  const name = value.startsWith('.') ? value.slice(1) : value;
  return hostnameOf(name) === undefined || name.includes(':') ? `${JSON.stringify(value)} is not a host name (api.example.com, .example.com, or *)` : undefined;
}

/** An address, a CIDR range, or one of proxy-addr's names for ranges; checked before anything starts. */
function proxyProblem(value: string): string | undefined {
  if (PROXY_RANGE_NAMES.has(value)) return undefined;
  const [address = '', prefix, extra] = value.split('/');
  const family = isIP(address);
  const longest = family === 6 ? 128 : 32;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= longest);
  if (family !== 0 && prefixOk && extra === undefined) return undefined;
  return `${JSON.stringify(value)} is not an address, an address/prefix range, nor one of ${[...PROXY_RANGE_NAMES].join(', ')}`;
}

const PROXY_RANGE_NAMES: ReadonlySet<string> = new Set(['loopback', 'linklocal', 'uniquelocal']);

function minimumLength(length: number, what: string): (value: string) => string | undefined {
  return (value) => (value.length >= length ? undefined : `${what} must be ${length} characters or more (it is ${value.length})`);
}
