import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { InitFlags } from './command-flags.js';

/** `jarvis init`: writes the starter config and says what to do next; an existing file needs `--force`. */
export async function runInit(flags: InitFlags, io: CliIo): Promise<void> {
  if (flags.path !== undefined && flags.config !== undefined && flags.path !== flags.config)
    throw new UsageError('--path and --config name the same file: give one of them');
  const path = flags.path ?? flags.config;
  const { initConfig } = await import('../system/index.js');
  const written = await initConfig({
    env: io.env,
    cwd: io.cwd,
    force: flags.force === true,
    ...(path === undefined ? {} : { configPath: path }),
  });
  const verb = written.replaced ? 'Replaced' : 'Wrote';
  const named = path === undefined ? '' : ` --config ${shellWord(written.path)}`;
  io.stdout.write(
    [
      `${verb} the starter config: ${written.path}`,
      '',
      'Next:',
      '  - edit it: every setting is commented out and shows its default',
      `  - run \`jarvis doctor${named}\` to check Node.js, the engines, SQLite and the sandbox`,
      `  - ask something: \`jarvis ask${named} "Hello"\``,
      '',
    ].join('\n'),
  );
}

/** A path as one shell word (single-quoted when it has characters a shell would split or expand). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
