import { JarvisError } from '../../core/index.js';
import { type ConfigCheck, checkConfigTable, checkConfigText } from './config-check.js';
import type { ConfigContext, LoadedConfig } from './load.js';
import { ConfigError } from './problems.js';

/** Parses and validates config text as if read from `file`; throws `config_invalid` for any problem. */
export function configFromToml(text: string, file: string, context: ConfigContext): LoadedConfig {
  return loadedOrThrow(checkConfigText(text, file, context));
}

/** Checks the parsed tables and the environment with the schema, collecting every problem before throwing. */
export function checkedConfig(
  table: Readonly<Record<string, unknown>>,
  source: { readonly file: string | undefined; readonly text: string },
  context: ConfigContext,
): LoadedConfig {
  return loadedOrThrow(checkConfigTable(table, source, context));
}

/**
 * The loaded config of a check, or its problems thrown as this package's errors: config-check.ts creates none of
 * them, so that the library can load it as a separate file without a second copy of the error classes.
 */
function loadedOrThrow(check: ConfigCheck): LoadedConfig {
  if (check.kind === 'loaded') return check.loaded;
  if (check.kind === 'invalid') throw new ConfigError(check.problems);
  throw new JarvisError({ code: 'config_invalid', message: check.message, cause: check.cause });
}
