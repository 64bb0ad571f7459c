import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The variable through which the global setup tells test workers where this run's build is. */
export const BUILD_VARIABLE = 'OPENJARVIS_TEST_BUILD';

/**
 * The folder of this vitest run (`.test-build/run-<pid>`), so test runs going on at the same time never rebuild
 * each other's: the global setup builds the CLI and the library into it, and tests keep their own run-scoped
 * files there (bundled scripts, the Pyodide snapshot). Importing this module does not wait for the build; import
 * `cli-build.js` for that.
 */
export const TEST_BUILD = process.env[BUILD_VARIABLE] ?? join(ROOT, '.test-build', 'manual');
