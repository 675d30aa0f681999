// A real S3-compatible server (@20minutes/s3rver) in its own process, for the
// tests: `node s3-server-process.mjs <directory> <bucket>` listens on a free
// loopback port, prints `{"port":N}` once, then one line per request
// (`{"method":"PUT","url":"/bucket/key?query"}`), which tests count.
import S3rver from '@20minutes/s3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, allowMismatchedSignatures: true, configureBuckets: [{ name: bucket }] });
const address = await server.run();
server.httpServer.on('request', (request) => process.stdout.write(`${JSON.stringify({ method: request.method, url: request.url })}\n`));
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
