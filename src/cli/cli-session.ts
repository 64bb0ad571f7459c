import type { Redactor } from '../core/index.js';

/**
 * What the CLI learns while a command runs that its error output depends on: the system's redactor (which
 * knows the configured secrets) once the system is built, and whether `--verbose` was given.
 */
export class CliSession {
  #redactor: Redactor | undefined;
  #verbose = false;

  /** True when `--verbose` was given. */
  get verbose(): boolean {
    return this.#verbose;
  }

  /** The redactor that knows the configured secrets, once a system gave one. */
  get redactor(): Redactor | undefined {
    return this.#redactor;
  }

  /** Records `--verbose` (set by the program before the command's action runs). */
  setVerbose(verbose: boolean): void {
    this.#verbose = verbose;
  }

  /** Uses `redactor` (the system's, knowing the configured secrets) for everything printed from now on. */
  useRedactor(redactor: Redactor): void {
    this.#redactor = redactor;
  }
}
