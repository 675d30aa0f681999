/** `s3://bucket/prefix` → its parts; undefined when the text is not an `s3://` URL (then it is a directory). */
export function parseS3Location(text: string): { readonly bucket: string; readonly prefix: string } | undefined {
  const match = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/i.exec(text);
  if (match === null) return undefined;
  const bucket = match[1] as string;
  // S3's rules for bucket names (3–63 lowercase letters, digits, dots and hyphens), checked here so a typo fails at start-up.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`"${bucket}" is not a bucket name (3 to 63 lowercase letters, digits, dots or hyphens)`);
  return { bucket, prefix: match[2] as string };
}

export function isS3Location(text: string): boolean {
  return /^s3:\/\//i.test(text);
}
