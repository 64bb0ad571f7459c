import type { NoModelError } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { InitFlags } from './command-flags.js';
import { canAsk } from './prompt-yes-no.js';

/**
 * `jarvis init`: writes the starter config and says what to do next; an existing file needs `--force`. With no
 * engine answering and no model downloaded, it offers the recommended model (on a terminal, or `--yes`).
 */
export async function runInit(flags: InitFlags, io: CliIo): Promise<void> {
  if (flags.path !== undefined && flags.config !== undefined && flags.path !== flags.config)
    throw new UsageError('--path and --config name the same file: give one of them');
  const path = flags.path ?? flags.config;
  const system = await import('../system/index.js');
  const written = await system.initConfig({
    env: io.env,
    cwd: io.cwd,
    force: flags.force === true,
    ...(path === undefined ? {} : { configPath: path }),
  });
  io.stdout.write(
    `${written.replaced ? 'Replaced' : 'Wrote'} the starter config: ${written.path}\n`,
  );
  const missing = await missingModel(written.path, io);
  const pulled = missing !== undefined && (await offerModel(missing, flags, written.path, io));
  const named = path === undefined ? '' : ` --config ${shellWord(written.path)}`;
  io.stdout.write(
    [
      '',
      'Next:',
      '  - edit it: every setting is commented out and shows its default',
      `  - run \`jarvis doctor${named}\` to check Node.js, the engines, SQLite and the sandbox`,
      ...(missing === undefined || pulled
        ? []
        : [`  - no engine answers and no model is downloaded: \`${system.PULL_COMMAND}\``]),
      `  - ask something: \`jarvis ask${named} "Hello"\``,
      '',
    ].join('\n'),
  );
}

/** The first-run offer of init (on a terminal, or with `--yes`); true when the model was downloaded. */
async function offerModel(
  missing: NoModelError,
  flags: InitFlags,
  configPath: string,
  io: CliIo,
): Promise<boolean> {
  if (flags.yes !== true && !canAsk(io)) return false;
  const { offerFirstModel } = await import('./first-run.js');
  return offerFirstModel(missing, { yes: flags.yes, config: configPath, purpose: 'use' }, io);
}

/**
 * The no-model problem of the config just written (no engine answers, no GGUF file in the models folder), or
 * undefined when an engine is there.
 */
async function missingModel(configPath: string, io: CliIo): Promise<NoModelError | undefined> {
  const system = await import('../system/index.js');
  const { config } = await system.loadConfig({ env: io.env, cwd: io.cwd, configPath });
  const built = system.buildSystem({ config });
  try {
    await built.engine(io.signal);
    return undefined;
  } catch (error) {
    return system.NoModelError.find(error);
  } finally {
    await built.close();
  }
}

/** A path as one shell word (single-quoted when it has characters a shell would split or expand). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
