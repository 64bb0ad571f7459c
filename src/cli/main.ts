#!/usr/bin/env node
/**
 * The `jarvis` entry point. `--version` answers before anything else loads; every other command loads the
 * program definition and, inside its action, only the modules it needs.
 */
const argv = process.argv.slice(2);

/** The version written into the bundle (see package-version.ts); tsc's output reads package.json instead. */
declare const __JARVIS_PACKAGE_VERSION__: string | undefined;

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // In the bundle this folds to the version itself: `jarvis --version` then loads no other module.
  const version =
    typeof __JARVIS_PACKAGE_VERSION__ === 'string'
      ? __JARVIS_PACKAGE_VERSION__
      : (await import('./package-version.js')).packageVersion();
  process.stdout.write(`${version}\n`);
} else {
  const { runMain } = await import('./cli-main.js');
  const code = await runMain(argv);
  process.exitCode = code;
  // Everything the command opened is closed by now; should a stray handle remain, do not hang on it.
  setTimeout(() => process.exit(code), 3_000).unref();
}
