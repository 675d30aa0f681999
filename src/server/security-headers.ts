import type { OutgoingHttpHeaders } from 'node:http';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance, type onSendHookHandler } from 'fastify';

/**
 * The policy of the server's HTML pages (GraphiQL at /graphql, the API
 * reference at /docs), checked in Chromium with no violation reported
 * (test/server/browser-pages.test.ts). Scripts come only from this origin
 * (the pages run nothing inline: their settings are JSON data blocks), as do
 * Monaco's editor workers and every request. Styles allow 'unsafe-inline'
 * because both bundles set style attributes and write style elements at run
 * time, which no nonce or hash can cover; a style cannot run code.
 */
export const PAGE_CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    workerSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
  },
} as const;

/** helmet's headers for pages; HSTS is left to whoever terminates TLS (this server speaks plain HTTP). */
const PAGE_HEADERS: FastifyHelmetOptions = {
  global: false,
  contentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY,
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
};

/**
 * Security headers at the edge, for both front-ends and every route:
 * `X-Content-Type-Options: nosniff` on every answer (API, errors, files,
 * 304s), so no browser ever runs a JSON body or an uploaded file as
 * something else; and helmet's set (Content-Security-Policy,
 * Referrer-Policy, X-Frame-Options, …) on every HTML page.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  const pageHeaders = await helmetPageHeaders();
  const securityHeaders: onSendHookHandler = (_request, reply, payload, done) => {
    void reply.header('x-content-type-options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) void reply.headers(pageHeaders);
    done(null, payload);
  };
  app.addHook('onSend', securityHeaders);
}

/**
 * helmet's page headers, worked out once: the policy has no nonces, so every
 * page gets the same set, and registering helmet on the server itself would
 * add two onRequest hooks (one async) to every API request.
 */
async function helmetPageHeaders(): Promise<OutgoingHttpHeaders> {
  const probe = Fastify();
  try {
    await probe.register(helmet, { ...PAGE_HEADERS, global: true });
    probe.get('/', (_request, reply) => reply.send(''));
    const response = await probe.inject({ method: 'GET', url: '/' });
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (!PROBE_OWN_HEADERS.has(name) && value !== undefined) headers[name] = value;
    }
    return headers;
  } finally {
    await probe.close();
  }
}

/** The probe's own headers, not helmet's. */
const PROBE_OWN_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
