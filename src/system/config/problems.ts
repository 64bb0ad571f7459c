import { JarvisError } from '../../core/index.js';

/** One invalid value: where it is written and what is wrong with it. */
export interface ConfigProblem {
  /** The config file, or undefined when the value came from an environment variable. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** Dotted key (`agent.max_turns`, `mcp.servers[1].name`) or the environment variable's name. */
  readonly key: string;
  readonly message: string;
}

/** A problem found while reading the config that does not stop it from loading (an unknown key). */
export interface ConfigWarning {
  readonly file: string;
  readonly line: number | undefined;
  readonly key: string;
  readonly message: string;
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

/** Items sorted by line, those without a line last (a stable sort: ties keep their order). */
export function inFileOrder<T extends { readonly line: number | undefined }>(
  items: readonly T[],
): T[] {
  return items.toSorted(
    (left, right) =>
      (left.line ?? Number.MAX_SAFE_INTEGER) - (right.line ?? Number.MAX_SAFE_INTEGER),
  );
}
