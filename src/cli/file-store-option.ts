import type { FileServiceOptions } from '../files/file-service.js';
import { parseS3Location } from '../files/s3-location.js';
import { CliError } from './cli-error.js';

/**
 * What `--files` names: a local directory, or `s3://bucket/prefix` with the
 * endpoint, region and credentials from the usual AWS variables
 * (docs/object-storage.md). Only here are they read from the environment.
 */
export async function fileStoreOption(files: string, env: NodeJS.ProcessEnv): Promise<Pick<FileServiceOptions, 'directory' | 'store'>> {
  let location: ReturnType<typeof parseS3Location>;
  try {
    location = parseS3Location(files);
  } catch (error) {
    throw new CliError(`--files ${files}: ${(error as Error).message}`);
  }
  if (location === undefined) return { directory: files };
  const endpoint = nonEmpty(env['AWS_ENDPOINT_URL_S3']) ?? nonEmpty(env['AWS_ENDPOINT_URL']);
  const accessKeyId = nonEmpty(env['AWS_ACCESS_KEY_ID']);
  const secretAccessKey = nonEmpty(env['AWS_SECRET_ACCESS_KEY']);
  const sessionToken = nonEmpty(env['AWS_SESSION_TOKEN']);
  const pathStyle = nonEmpty(env['AWS_S3_FORCE_PATH_STYLE']);
  if (pathStyle !== undefined && !/^(true|false|1|0)$/i.test(pathStyle)) throw new CliError(`AWS_S3_FORCE_PATH_STYLE must be true or false (got "${pathStyle}")`);
  // Loaded only here: the AWS SDK costs start-up time that a local directory need not pay.
  const { createS3FileStore } = await import('../files/s3-file-store.js');
  return {
    store: createS3FileStore({
      bucket: location.bucket,
      prefix: location.prefix,
      ...(endpoint === undefined ? {} : { endpoint }),
      region: nonEmpty(env['AWS_REGION']) ?? nonEmpty(env['AWS_DEFAULT_REGION']) ?? 'us-east-1',
      ...(accessKeyId === undefined || secretAccessKey === undefined
        ? {}
        : { credentials: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) } }),
      // Self-hosted stores (an endpoint of your own) want the bucket in the path; AWS itself wants it in the host name.
      forcePathStyle: pathStyle === undefined ? endpoint !== undefined : /^(true|1)$/i.test(pathStyle),
    }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
