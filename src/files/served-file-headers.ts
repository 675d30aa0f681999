/**
 * The headers of every response that serves a stored file or a variant of
 * one. The bytes are the uploader's, and a valid image may carry anything
 * after its end (decoders stop there: a PNG with HTML appended passes every
 * check), so the response itself must keep a browser from ever treating it
 * as a page: the type is ours and may not be second-guessed (nosniff), a
 * document opened from it runs nothing and loads nothing (CSP `sandbox`,
 * `default-src 'none'`), and it has a name of ours rather than the URL's.
 */
export function servedFileHeaders(filename: string, mediaType: string): Record<string, string> {
  return {
    'content-type': mediaType,
    'x-content-type-options': 'nosniff',
    'content-security-policy': FILE_CSP,
    'content-disposition': inlineDisposition(filename),
  };
}

/** Nothing may load and nothing may run; `sandbox` also gives the document an opaque origin (no cookies, no storage). */
export const FILE_CSP = "default-src 'none'; sandbox";

/** Characters a filename may keep as they are: RFC 6266's quoted-string would take more, but these are safe in every client. */
const PLAIN = /^[A-Za-z0-9._-]+$/;

/**
 * `inline; filename="<name>"` (RFC 6266 §4.1), shown in place but saved under
 * that name. A name with other characters gets an ASCII stand-in in
 * `filename` and the real one in `filename*` (RFC 8187, UTF-8), which
 * clients that know it prefer (RFC 6266 §4.3).
 */
export function inlineDisposition(filename: string): string {
  if (PLAIN.test(filename)) return `inline; filename="${filename}"`;
  const fallback = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  // RFC 8187 attr-char excludes ' ( ) * which encodeURIComponent leaves alone.
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
