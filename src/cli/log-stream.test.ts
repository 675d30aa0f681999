import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogStream } from './log-stream.js';

describe('createLogStream', () => {
  it('leaves JSON lines (pino on stdout) when the output is not a terminal', async () => {
    expect(await createLogStream(false)).toBeUndefined();
  });

  it('writes a pretty line with a wall-clock time, the level and the request line for a terminal', async () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const stream = await createLogStream(true, sink);
    if (stream === undefined) throw new Error('expected a pretty stream for a terminal');
    const log = pino({ base: { pid: 1, hostname: 'h' } }, stream as NodeJS.WritableStream).child({ reqId: 'req-7' });
    log.info({ method: 'GET', url: '/users', status: 200, ms: 1.5 }, 'GET /users 200 1.5 ms');
    // eslint-disable-next-line no-control-regex -- colours are the terminal's; the text is what is checked
    const text = out.replace(/\u001b\[\d+m/g, '');
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/users 200 1\.5 ms \{"reqId":"req-7"\}\n$/);
  });
});
