import { JarvisError } from '../core/index.js';
import type { Jarvis, SessionHandle } from '../sdk/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { AskFlags } from './command-flags.js';

/**
 * The session `jarvis ask` adds its turn to: `--session <name|id>` (found, or started under a new name),
 * `--continue` (the most recently updated one; a new one, said on stderr, when there is none), else none (a
 * plain question, nothing stored). An unknown `ses_…` id or a bad name is a usage error saying what to do.
 */
export async function askSession(
  jarvis: Jarvis,
  flags: AskFlags,
  io: CliIo,
): Promise<SessionHandle | undefined> {
  if (flags.session !== undefined && flags.continue === true)
    throw new UsageError(
      '--session and --continue both pick a session: give one of them (--continue is the most recent one)',
    );
  const system = await jarvis.system();
  if (flags.session !== undefined) {
    const session = await system.openSession(flags.session).catch((error: unknown) => {
      throw sessionUsageError(error);
    });
    return jarvis.session(session.id);
  }
  if (flags.continue !== true) return undefined;
  const latest = await system.sessions().latest();
  if (latest !== undefined) return jarvis.session(latest.id);
  const started = await system.openSession();
  io.stderr.write(
    `No session yet: started a new one (${started.id}); \`jarvis ask --continue\` adds to it.\n`,
  );
  return jarvis.session(started.id);
}

/** A session that is not there, or a name that is not accepted, is the caller's mistake (exit 2). */
export function sessionUsageError(error: unknown): unknown {
  if (!JarvisError.isInstance(error)) return error;
  if (error.code === 'session_not_found' || error.code === 'invalid_argument')
    return new UsageError(error.message);
  return error;
}
