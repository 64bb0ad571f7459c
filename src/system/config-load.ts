import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { createRedactor, describeError, JarvisError, type Redactor } from '../core/index.js';
import { resolvePath } from './config-checks.js';
import { applyEngineEnvironment, type Environment } from './config-env.js';
import { syntaxExcerpt } from './config-excerpt.js';
import { ConfigIssues, type ConfigProblem, TableReader } from './config-fields.js';
import { readConfigFile } from './config-file.js';
import { indexKeyLines } from './config-lines.js';
import { configSecrets, environmentSecrets, secretsInText } from './config-secrets.js';
import {
  type PathContext,
  readAgent,
  readEngine,
  readImports,
  readMemory,
  readScheduler,
  readTelemetry,
} from './config-sections.js';
import { readMcp, readTools } from './config-tools.js';
import type { ConfigWarning, JarvisConfig } from './config-types.js';

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

/** Invalid values in a config file or the environment; `problems` lists every one (code `config_invalid`). */
export class ConfigError extends JarvisError {
  /** Every invalid value, in file order, then the environment variables. */
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super({ code: 'config_invalid', message: describeProblems(problems) });
    this.problems = problems;
  }
}

/** The upstream sections this port has no use for: accepted with a warning. */
const UNUSED_SECTIONS = ['security', 'learning', 'server', 'traces', 'sandbox', 'channel'];

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
  if (text === undefined) return buildConfig({}, { file: undefined, text: '' }, context);
  return configFromToml(text, location.path, context);
}

/** Parses and validates config text as if read from `file`; throws `config_invalid` for any problem. */
export function configFromToml(text: string, file: string, context: ConfigContext): LoadedConfig {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let table: Record<string, unknown>;
  try {
    table = parse(source);
  } catch (error) {
    const redact = createRedactor([
      ...secretsInText(source),
      ...environmentSecrets(context.env ?? {}),
    ]);
    throw syntaxError(error, file, source, redact);
  }
  return buildConfig(table, { file, text: source }, context);
}

/** Maps the parsed tables to a `JarvisConfig`, collecting every problem before throwing. */
function buildConfig(
  table: Readonly<Record<string, unknown>>,
  source: { readonly file: string | undefined; readonly text: string },
  context: ConfigContext,
): LoadedConfig {
  const issues = new ConfigIssues({ file: source.file, lineOf: indexKeyLines(source.text) });
  const root = new TableReader(table, [], issues);
  const paths: PathContext = {
    home: context.home,
    cwd: context.cwd,
    homeDir: context.homeDir,
    configDir: source.file === undefined ? undefined : dirname(source.file),
  };
  const engine = readEngine(root, paths);
  const config: JarvisConfig = {
    home: context.home,
    configPath: source.file,
    engine:
      context.env === undefined ? engine : applyEngineEnvironment(engine, context.env, issues),
    agent: readAgent(root),
    memory: readMemory(root, paths),
    tools: readTools(root, paths),
    scheduler: readScheduler(root, paths),
    telemetry: readTelemetry(root, paths),
    mcp: readMcp(root),
    imports: readImports(root, paths),
  };
  root.ignore(UNUSED_SECTIONS);
  root.finish();
  const redact = createRedactor([
    ...secretsInText(source.text),
    ...configSecrets(config, context.env ?? {}),
  ]);
  const errors = issues.errors.map((problem) => redactIssue(problem, redact));
  if (errors.length > 0) throw new ConfigError(inFileOrder(errors));
  return { config, warnings: inFileOrder(issues.warnings.map((w) => redactIssue(w, redact))) };
}

/** A problem or warning with its key and message redacted (values quoted in messages may be secrets). */
function redactIssue<T extends { readonly key: string; readonly message: string }>(
  issue: T,
  redact: Redactor,
): T {
  return { ...issue, key: redact(issue.key), message: redact(issue.message) };
}

function inFileOrder<T extends { readonly line: number | undefined }>(items: readonly T[]): T[] {
  return items.toSorted(
    (left, right) =>
      (left.line ?? Number.MAX_SAFE_INTEGER) - (right.line ?? Number.MAX_SAFE_INTEGER),
  );
}

/**
 * The error for text that is not TOML: file, line, column, what is wrong, and an excerpt with every secret (known
 * or secret-shaped) redacted. The cause keeps smol-toml's error without its message and excerpt, which show the
 * text as it is.
 */
function syntaxError(error: unknown, file: string, text: string, redact: Redactor): JarvisError {
  if (!(error instanceof TomlError)) {
    return new JarvisError({
      code: 'config_invalid',
      message: `${file}: cannot parse the TOML: ${redact(describeError(error))}`,
    });
  }
  const what = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  const excerpt = syntaxExcerpt(text, error, redact);
  return new JarvisError({
    code: 'config_invalid',
    message: `${file}:${error.line}:${error.column}: ${redact(what)}\n${excerpt}Fix the TOML syntax there (TOML v1.0, https://toml.io) and run again.`,
    cause: redactedCause(error, redact),
  });
}

/** A copy of a TomlError whose message and excerpt are redacted (a cause is printed by `console.error` and loggers). */
function redactedCause(error: TomlError, redact: Redactor): Error {
  const cause = new Error(redact(error.message.split('\n')[0] ?? ''));
  cause.name = 'TomlError';
  return Object.assign(cause, { line: error.line, column: error.column });
}

/** One message listing every problem as `file:line: key: what` (environment variables by name). */
function describeProblems(problems: readonly ConfigProblem[]): string {
  const lines = problems.map((problem) => {
    if (problem.file === undefined)
      return `  environment variable ${problem.key}: ${problem.message}`;
    const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
    return `  ${where}: ${problem.key}: ${problem.message}`;
  });
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return [
    `Invalid configuration (${count}):`,
    ...lines,
    'Fix the values above and run again; the starter config that `jarvis init` writes documents every key.',
  ].join('\n');
}
