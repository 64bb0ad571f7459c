import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Returns the path of the first `*.gguf` file (by sorted name) in `modelsDir`, or `undefined` if none or no folder. */
export async function findDefaultModel(modelsDir: string): Promise<string | undefined> {
  const entries = await readdir(modelsDir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && /\.gguf$/i.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  const first = names[0];
  return first === undefined ? undefined : join(modelsDir, first);
}
