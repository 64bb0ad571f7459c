import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from './build.js';
import type { Environment } from './env.js';
import { readConfigFile } from './file.js';
import { resolvePath } from './paths.js';
import type { ConfigWarning } from './problems.js';
import type { JarvisConfig } from './schema.js';

/** Options of `loadConfig`; each defaults to the real process (environment, current and home folder). */
export interface LoadConfigOptions {
  /** The config file to read (`--config`); relative to `cwd`. A missing named file is an error. */
  readonly configPath?: string;
  /** Default `process.env`. */
  readonly env?: Environment;
  /** Default `process.cwd()`. */
  readonly cwd?: string;
  /** The user's home folder, for `~` and the default home; default `os.homedir()`. */
  readonly homeDir?: string;
}

/** What `configFromToml` needs besides the text; nothing is read from the process. */
export interface ConfigContext {
  /** The OpenJarvis home folder (absolute). */
  readonly home: string;
  readonly cwd: string;
  readonly homeDir: string;
  /** Environment overrides to apply; none when absent. */
  readonly env?: Environment;
}

/** A loaded configuration and the warnings (unknown or unused keys) found on the way. */
export interface LoadedConfig {
  readonly config: JarvisConfig;
  readonly warnings: readonly ConfigWarning[];
}

/** Where the config is: the home folder, the file, and what named the file (undefined: the default place). */
export interface ConfigLocation {
  readonly home: string;
  readonly path: string;
  readonly namedBy: 'option' | 'OPENJARVIS_CONFIG' | undefined;
}

/**
 * Finds the home folder (`OPENJARVIS_HOME`, default `<homeDir>/.openjarvis`) and the config file
 * (`configPath`, else `OPENJARVIS_CONFIG`, else `<home>/config.toml`), both absolute with `~` expanded.
 */
export function configLocation(options: LoadConfigOptions = {}): ConfigLocation {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const homeDir = options.homeDir ?? homedir();
  const homeVariable = env.OPENJARVIS_HOME?.trim();
  const home = homeVariable
    ? resolvePath(homeVariable, cwd, homeDir)
    : join(homeDir, '.openjarvis');
  if (options.configPath !== undefined && options.configPath.trim() !== '') {
    return { home, path: resolvePath(options.configPath, cwd, homeDir), namedBy: 'option' };
  }
  const configVariable = env.OPENJARVIS_CONFIG?.trim();
  if (configVariable) {
    return { home, path: resolvePath(configVariable, cwd, homeDir), namedBy: 'OPENJARVIS_CONFIG' };
  }
  return { home, path: join(home, 'config.toml'), namedBy: undefined };
}

/**
 * Reads and validates the config file, then applies the environment overrides of DESIGN.md §7. A missing file at
 * the default place gives the defaults; a missing file that was named, a malformed file or an invalid value throws
 * (`config_not_found`, `config_unreadable`, `config_invalid`). Unknown keys are returned as warnings.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const location = configLocation(options);
  const context: ConfigContext = {
    home: location.home,
    cwd: options.cwd ?? process.cwd(),
    homeDir: options.homeDir ?? homedir(),
    env: options.env ?? process.env,
  };
  const text = await readConfigFile(location);
  if (text === undefined && !setsAnOverride(context.env)) return defaultConfig(context);
  // The schemas (zod) and the TOML parser load only when there is something to check.
  const { checkedConfig, configFromToml } = await import('./from-toml.js');
  if (text === undefined) return checkedConfig({}, { file: undefined, text: '' }, context);
  return configFromToml(text, location.path, context);
}

/** The variables that override settings of the config file: the keys of env.ts's `environmentSchema`. */
export const ENVIRONMENT_OVERRIDES: readonly string[] = [
  'OPENJARVIS_ENGINE',
  'OPENJARVIS_MODEL',
  'OLLAMA_HOST',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENJARVIS_DATABASE_URL',
];

function setsAnOverride(env: Environment | undefined): boolean {
  return ENVIRONMENT_OVERRIDES.some((name) => env?.[name] !== undefined);
}

/**
 * The configuration when no config file exists and no variable of `ENVIRONMENT_OVERRIDES` is set: the defaults
 * of `buildConfig`, which is what the schemas give for an empty file (load.test.ts holds the two equal), without
 * loading them: building and running the zod schemas and loading the TOML parser cost more than the rest of
 * `jarvis tools list`'s start.
 */
export function defaultConfig(context: ConfigContext): LoadedConfig {
  const where = {
    home: context.home,
    cwd: context.cwd,
    homeDir: context.homeDir,
    configDir: undefined,
    configPath: undefined,
  };
  return { config: buildConfig({}, where), warnings: [] };
}
