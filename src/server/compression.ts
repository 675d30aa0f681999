import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { matchingTag } from '../engine/validators.js';
import { addVary } from '../util/vary.js';

/**
 * What is worth compressing: JSON of any flavour (REST, problem+json,
 * GraphQL's responses), HTML, scripts and styles; the plugin adds the types
 * mime-db marks compressible (such as image/x-icon). Not photos or other
 * compressed formats, not byte ranges (a range of a file must stay a range
 * of its bytes), not event streams (each event must leave at once).
 */
const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/(?:html|css|javascript|plain)|application\/javascript)\s*(?:;|$)/i;

/** Below this many bytes compression saves less than it costs (and a small answer fits one packet anyway). */
const THRESHOLD_BYTES = 1024;

/**
 * br or gzip by Accept-Encoding (@fastify/compress), for every route
 * registered after this. A compressed answer is another representation
 * (RFC 9110 §8.8.3), so its ETag gets the coding as a suffix (`"abc-br"`,
 * matched again by engine/validators.ts); every compressible answer says
 * `Vary: Accept-Encoding`, so a shared cache keeps the codings apart; and a
 * 304 names the tag the client holds, compressed or not.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: THRESHOLD_BYTES,
    customTypes: COMPRESSIBLE,
    // Every buffered answer is compressed in one synchronous call, never through a stream: a stream sends
    // its head only with its first chunk, and a handler that resolves `undefined` after reply.send()
    // (REST's do) would then have Fastify send again, an empty body. br at quality 4 took 1 to 7 ms here
    // for a 440 KB page (100 records with 10 embedded each), on the main thread.
    syncThreshold: Number.MAX_SAFE_INTEGER,
  });
  // After the plugin's own onRoute hook, so this onSend runs after its compression.
  app.addHook('onRoute', (route) => {
    const own = route.onSend;
    route.onSend = own === undefined ? [tagCompressed] : Array.isArray(own) ? [...own, tagCompressed] : [own, tagCompressed];
  });
}

const tagCompressed: onSendHookHandler = (request, reply, payload, done) => {
  const etag = reply.getHeader('etag');
  if (reply.statusCode === 304) {
    if (typeof etag === 'string') answerHeldTag(request, reply, etag);
    addVary(reply, 'Accept-Encoding');
  } else {
    // The plugin also compresses types mime-db calls compressible (an icon, say), so the coding is what counts.
    const coding = reply.getHeader('content-encoding');
    const compressed = coding === 'br' || coding === 'gzip';
    if (compressed || isCompressible(reply)) addVary(reply, 'Accept-Encoding');
    if (compressed && typeof etag === 'string' && !etag.endsWith(`-${coding}"`)) {
      void reply.header('etag', `${etag.slice(0, -1)}-${coding}"`);
    }
  }
  done(null, payload);
};

/** RFC 9110 §15.4.5: a 304 carries the ETag a 200 would, which is the variant the client has (the one it named). */
function answerHeldTag(request: FastifyRequest, reply: FastifyReply, etag: string): void {
  const header = request.headers['if-none-match'];
  const held = matchingTag(Array.isArray(header) ? header.join(', ') : header, etag);
  if (held !== undefined && held !== '*') void reply.header('etag', held);
}

function isCompressible(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && COMPRESSIBLE.test(type);
}

