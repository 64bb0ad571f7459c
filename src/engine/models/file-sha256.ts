import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** Bytes read per call: large reads keep the hashing, not the event loop's round trips, the cost. */
const READ_BYTES = 8 * 1024 * 1024;

/**
 * SHA-256 (hex) of a file, read in large blocks (a 64 kB stream made a 200 MB model's check take several
 * times longer than the hashing itself on a busy machine).
 */
export async function sha256OfLargeFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}
