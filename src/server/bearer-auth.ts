import { nodeCrypto } from './node-crypto.js';

/**
 * Whether an `Authorization` header carries the expected Bearer key. Both sides are hashed to equal-length
 * SHA-256 digests and compared with `timingSafeEqual`, so the time taken tells nothing about the key.
 */
export function bearerKeyMatches(header: string | undefined, expectedKey: string): boolean {
  const match = /^Bearer[ \t]+(.+)$/i.exec(header?.trim() ?? '');
  const given = match?.[1]?.trim() ?? '';
  const same = nodeCrypto().timingSafeEqual(digest(given), digest(expectedKey));
  return same && given !== '';
}

function digest(text: string): Buffer {
  return nodeCrypto().createHash('sha256').update(text, 'utf8').digest();
}
