import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { onRequestHookHandler } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from '../rest/problem.js';

/**
 * Which `Host` names the server answers to, against DNS rebinding: a page on
 * `evil.example` whose name the attacker then points at 127.0.0.1 is, to the
 * browser, same-origin with a server on the user's machine, and its requests
 * carry `Host: evil.example`. Checking Host is the one defence (as Vite's and
 * webpack-dev-server's `allowedHosts` do). Always allowed: `localhost` and
 * its subdomains, and every IP address — a rebinding page needs a name the
 * attacker controls, which an address literal is not — so a server bound to
 * 0.0.0.0 answers by address (load balancers' and orchestrators' health
 * probes, `curl 10.0.0.5:4000`) and on loopback, and any DNS name must be
 * named: the public URL's host, or an entry of `allowedHosts`.
 */
export interface HostPolicy {
  /** `https://api.example.com`: where clients reach the server; its host is allowed. */
  readonly publicUrl?: string;
  /** Host names (`api.example.com`), `.example.com` for that domain and its subdomains, or `*` for any (only behind a proxy that checks Host itself). */
  readonly allowedHosts?: readonly string[];
}

/** The compiled policy: is this hostname (lowercase, IPv6 in brackets, no port) allowed? */
export type HostCheck = (hostname: string) => boolean;

export function compileHostPolicy(policy: HostPolicy | undefined): HostCheck {
  const entries = [...(policy?.allowedHosts ?? [])].map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '');
  if (policy?.publicUrl !== undefined) entries.push(publicUrlHost(policy.publicUrl));
  if (entries.includes('*')) return () => true;
  const exact = new Set(entries.filter((entry) => !entry.startsWith('.')).map(normaliseHostEntry));
  const suffixes = entries.filter((entry) => entry.startsWith('.')).map((entry) => `.${normaliseHostEntry(entry.slice(1))}`);
  return (hostname) =>
    exact.has(hostname) ||
    isAddress(hostname) ||
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    suffixes.some((suffix) => hostname.endsWith(suffix) || hostname === suffix.slice(1));
}

/** The host of a public URL (`https://api.example.com/` → `api.example.com`); a bad one fails at start-up. */
export function publicUrlHost(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username !== '' || parsed.password !== '') {
    throw new TypeError(`publicUrl: ${JSON.stringify(url)} is not an http(s) URL such as https://api.example.com`);
  }
  return parsed.hostname;
}

function normaliseHostEntry(entry: string): string {
  const hostname = hostnameOf(entry);
  if (hostname === undefined) throw new TypeError(`allowedHosts: ${JSON.stringify(entry)} is not a host name (api.example.com, .example.com, or *)`);
  return hostname;
}

/** `Host` as a URL would read it (lowercase, IDNA, IPv6 in brackets, without the port), or undefined when it is not a host. */
export function hostnameOf(host: string): string | undefined {
  if (host === '' || /[\s/?#@\\]/.test(host)) return undefined;
  const url = URL.canParse(`http://${host}`) ? new URL(`http://${host}`) : undefined;
  return url === undefined || url.hostname === '' ? undefined : url.hostname;
}

function isAddress(hostname: string): boolean {
  return isIP(hostname.startsWith('[') ? hostname.slice(1, -1) : hostname) !== 0;
}

/** The refusal, the same on every route and for WebSocket upgrades (RFC 9110 §15.5.20: the request reached a server that does not serve that name). */
export function hostNotAllowed(host: string | undefined): ApiError {
  return new ApiError('HOST_NOT_ALLOWED', {
    detail: `This server does not answer to Host ${JSON.stringify((host ?? '').slice(0, 100))}: name it in --public-url or --allowed-hosts`,
  });
}

/** Undefined when `host` (a Host header, or a trusted proxy's X-Forwarded-Host) is allowed; the refusal otherwise. */
export function hostRefusal(check: HostCheck, host: string | undefined): ApiError | undefined {
  // No Host at all: HTTP/1.0 from a program; a browser always sends one.
  if (host === undefined || host === '') return undefined;
  const hostname = hostnameOf(host);
  return hostname !== undefined && check(hostname) ? undefined : hostNotAllowed(host);
}

/**
 * The check for every route (an `onRequest` hook added before all others, so
 * a refused request runs nothing): 421 problem+json, on /graphql too, since
 * the client is not talking to this server's API at all. The host is the
 * one Fastify reports (X-Forwarded-Host only from a trusted proxy).
 */
export function hostGuard(check: HostCheck): onRequestHookHandler {
  return (request, reply, done) => {
    const refused = hostRefusal(check, request.host);
    if (refused === undefined) {
      done();
      return;
    }
    void reply.code(refused.status).type(PROBLEM_CONTENT_TYPE).header('cache-control', 'no-store').send(problemOf(refused, request.url));
  };
}

/** The host a WebSocket upgrade names, as Fastify would report it for a request. */
export function upgradeHost(request: IncomingMessage, fromTrustedProxy: boolean): string | undefined {
  const forwarded = request.headers['x-forwarded-host'];
  if (fromTrustedProxy && forwarded !== undefined) {
    const text = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
    return text.split(',').at(-1)?.trim();
  }
  return request.headers.host;
}
