import { dirname } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import type * as z from 'zod/mini';
import { createRedactor, describeError, type Redactor } from '../../core/index.js';
import type { ConfigWhere } from './build.js';
import {
  applyEngineEnvironment,
  applyStorageEnvironment,
  environmentSchema,
  environmentWarnings,
} from './env.js';
import { syntaxExcerpt } from './excerpt.js';
import { indexKeyLines, type KeyPath, type LineLocator } from './lines.js';
import type { ConfigContext, LoadedConfig } from './load.js';
import { type ConfigProblem, inFileOrder } from './problems.js';
import { configSchema, type JarvisConfig } from './schema.js';
import { configSecrets, environmentSecrets, secretsInText } from './secrets.js';
import { formatKeyPath } from './values.js';
import { configWarnings } from './warnings.js';

// This module is the whole of reading config text (the TOML parser, the zod schemas and what they build), as plain
// data in and plain data out: it creates none of the package's classes and keeps no state. The library bundle
// ships it as a CommonJS file that from-toml.ts's `configFromToml` loads on its first call (a synchronous
// `require`), so that importing the package does not compile zod and smol-toml; its own copy of the few helpers it
// shares with the rest of the package is harmless because they are functions without state.

/**
 * What checking config text found: the loaded config, the text's TOML syntax error (a message and the cause to
 * give the `config_invalid` error), or every invalid value (for a `ConfigError`), all secrets redacted.
 */
export type ConfigCheck =
  | { readonly kind: 'loaded'; readonly loaded: LoadedConfig }
  | { readonly kind: 'syntax'; readonly message: string; readonly cause: Error | undefined }
  | { readonly kind: 'invalid'; readonly problems: readonly ConfigProblem[] };

/** Parses and checks config text as if read from `file` (a byte order mark is ignored). */
export function checkConfigText(text: string, file: string, context: ConfigContext): ConfigCheck {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let table: Record<string, unknown>;
  try {
    table = parse(source);
  } catch (error) {
    const redact = createRedactor([
      ...secretsInText(source),
      ...environmentSecrets(context.env ?? {}),
    ]);
    return syntaxProblem(error, file, source, redact);
  }
  return checkConfigTable(table, { file, text: source }, context);
}

/** Checks the parsed tables and the environment with the schema, collecting every problem. */
export function checkConfigTable(
  table: Readonly<Record<string, unknown>>,
  source: { readonly file: string | undefined; readonly text: string },
  context: ConfigContext,
): ConfigCheck {
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
    return {
      kind: 'invalid',
      problems: inFileOrder(errors.map((problem) => redactIssue(problem, redact))),
    };
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
  const loaded = {
    config,
    warnings: inFileOrder(warnings.map((warning) => redactIssue(warning, redact))),
  };
  return { kind: 'loaded', loaded };
}

/** The key path of a zod issue, without symbols. */
function issuePath(issue: z.core.$ZodIssue): KeyPath {
  return issue.path.filter((part): part is string | number => typeof part !== 'symbol');
}

/** The problems of a config file's issues (paths relative to the file's top level), with their lines. */
function fileProblems(
  issues: readonly z.core.$ZodIssue[],
  file: string | undefined,
  lineOf: LineLocator,
): ConfigProblem[] {
  return issues.map((issue) => {
    const path = issuePath(issue);
    return { file, line: lineOf(path), key: formatKeyPath(path), message: issue.message };
  });
}

/** The problems of environment variables' issues: each names its variable. */
function environmentProblems(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.map((issue) => ({
    file: undefined,
    line: undefined,
    key: String(issuePath(issue)[0] ?? ''),
    message: issue.message,
  }));
}

/** A problem or warning with its key and message redacted (values quoted in messages may be secrets). */
function redactIssue<T extends { readonly key: string; readonly message: string }>(
  issue: T,
  redact: Redactor,
): T {
  return { ...issue, key: redact(issue.key), message: redact(issue.message) };
}

/**
 * The problem of text that is not TOML: file, line, column, what is wrong, and an excerpt with every secret (known
 * or secret-shaped) redacted. The cause keeps smol-toml's error without its message and excerpt, which show the
 * text as it is.
 */
function syntaxProblem(error: unknown, file: string, text: string, redact: Redactor): ConfigCheck {
  if (!(error instanceof TomlError)) {
    return {
      kind: 'syntax',
      message: `${file}: cannot parse the TOML: ${redact(describeError(error))}`,
      cause: undefined,
    };
  }
  const what = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  const excerpt = syntaxExcerpt(text, error, redact);
  return {
    kind: 'syntax',
    message: `${file}:${error.line}:${error.column}: ${redact(what)}\n${excerpt}Fix the TOML syntax there (TOML v1.0, https://toml.io) and run again.`,
    cause: redactedCause(error, redact),
  };
}

/** A copy of a TomlError whose message and excerpt are redacted (a cause is printed by `console.error` and loggers). */
function redactedCause(error: TomlError, redact: Redactor): Error {
  const cause = new Error(redact(error.message.split('\n')[0] ?? ''));
  cause.name = 'TomlError';
  return Object.assign(cause, { line: error.line, column: error.column });
}
