#!/usr/bin/env node
/**
 * The `jarvis` entry point. `--version` answers before anything else loads; every other command loads the
 * program definition and, inside its action, only the modules it needs.
 */
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { packageVersion } = await import('./package-version.js');
  process.stdout.write(`${packageVersion()}\n`);
} else {
  const { runMain } = await import('./cli-main.js');
  const code = await runMain(argv);
  process.exitCode = code;
  // Everything the command opened is closed by now; should a stray handle remain, do not hang on it.
  setTimeout(() => process.exit(code), 3_000).unref();
}
