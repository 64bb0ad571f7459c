import { processIo } from './cli-io.js';
import { runCli } from './program.js';

/** Runs `jarvis` on the process's arguments, streams and environment; resolves to the exit code. */
export function runMain(argv: readonly string[]): Promise<number> {
  return runCli(argv, processIo());
}
