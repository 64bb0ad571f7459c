#!/usr/bin/env node
/**
 * The `jarvis` entry point. `--version` answers before anything else loads; every other command loads the
 * program definition and, inside its action, only the modules it needs. No top-level `await`: the bundle
 * (scripts/bundle-cli.mjs) runs this file as CommonJS, which starts without Node's ES module loader.
 */
const argv = process.argv.slice(2);

/** The version written into the bundle (see package-version.ts); tsc's output reads package.json instead. */
declare const __JARVIS_PACKAGE_VERSION__: string | undefined;

/** Prints the version: in the bundle this folds to the version itself, so `jarvis --version` loads nothing. */
async function printVersion(): Promise<void> {
  const version =
    typeof __JARVIS_PACKAGE_VERSION__ === 'string'
      ? __JARVIS_PACKAGE_VERSION__
      : (await import('./package-version.js')).packageVersion();
  process.stdout.write(`${version}\n`);
}

/** Runs the command line and sets the exit code. */
async function runCommand(): Promise<void> {
  const { runMain } = await import('./cli-main.js');
  const code = await runMain(argv);
  process.exitCode = code;
  // Everything the command opened is closed by now; should a stray handle remain, do not hang on it.
  setTimeout(() => process.exit(code), 3_000).unref();
}

void (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')
  ? printVersion()
  : runCommand());
