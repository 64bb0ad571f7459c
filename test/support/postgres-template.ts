import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The variable through which the global setup tells test workers the folder of this run's `initdb` template:
 * the first PostgreSQL test file runs `initdb` there, every later one copies the result (see postgres-server.ts).
 */
export const POSTGRES_TEMPLATE_VARIABLE = 'OPENJARVIS_TEST_POSTGRES_TEMPLATE';

/**
 * vitest global setup: an empty folder for the run's `initdb` template (filled on first use, so a run without
 * PostgreSQL tests pays nothing); the teardown removes it. The `postgres` user may pass through it (not list it):
 * run as root, `initdb` runs as that user in a folder inside it.
 */
export async function setup(): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'jarvis-pg-template-'));
  await chmod(folder, 0o711);
  process.env[POSTGRES_TEMPLATE_VARIABLE] = folder;
  return () => rm(folder, { recursive: true, force: true });
}
