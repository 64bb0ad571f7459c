import { dirname } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { createRedactor, describeError, JarvisError, type Redactor } from '../../core/index.js';
import type { ConfigWhere } from './build.js';
import {
  applyEngineEnvironment,
  applyStorageEnvironment,
  environmentSchema,
  environmentWarnings,
} from './env.js';
import { syntaxExcerpt } from './excerpt.js';
import { indexKeyLines } from './lines.js';
import type { ConfigContext, LoadedConfig } from './load.js';
import { ConfigError, environmentProblems, fileProblems, inFileOrder } from './problems.js';
import { configSchema, type JarvisConfig } from './schema.js';
import { configSecrets, environmentSecrets, secretsInText } from './secrets.js';
import { configWarnings } from './warnings.js';

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
  return checkedConfig(table, { file, text: source }, context);
}

/** Checks the parsed tables and the environment with the schema, collecting every problem before throwing. */
export function checkedConfig(
  table: Readonly<Record<string, unknown>>,
  source: { readonly file: string | undefined; readonly text: string },
  context: ConfigContext,
): LoadedConfig {
  const where: ConfigWhere = {
    home: context.home,
    cwd: context.cwd,
    homeDir: context.homeDir,
    configDir: source.file === undefined ? undefined : dirname(source.file),
    configPath: source.file,
  };
  const lineOf = indexKeyLines(source.text);
  const parsed = configSchema().safeParse({ file: table, where });
  const env = environmentSchema().safeParse(context.env ?? {});
  const errors = [
    ...fileProblems(parsed.error?.issues ?? [], source.file, lineOf),
    ...environmentProblems(env.error?.issues ?? []),
  ];
  const secrets = [...secretsInText(source.text), ...environmentSecrets(context.env ?? {})];
  if (!parsed.success || !env.success || errors.length > 0) {
    const redact = createRedactor(secrets);
    throw new ConfigError(inFileOrder(errors.map((problem) => redactIssue(problem, redact))));
  }
  const config: JarvisConfig = {
    ...parsed.data,
    engine: applyEngineEnvironment(parsed.data.engine, env.data),
    storage: applyStorageEnvironment(parsed.data.storage, env.data),
  };
  const warnings = [
    ...configWarnings(table, source.file, lineOf),
    ...environmentWarnings(env.data),
  ];
  const redact = createRedactor([...secrets, ...configSecrets(config, context.env ?? {})]);
  return { config, warnings: inFileOrder(warnings.map((warning) => redactIssue(warning, redact))) };
}

/** A problem or warning with its key and message redacted (values quoted in messages may be secrets). */
function redactIssue<T extends { readonly key: string; readonly message: string }>(
  issue: T,
  redact: Redactor,
): T {
  return { ...issue, key: redact(issue.key), message: redact(issue.message) };
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
