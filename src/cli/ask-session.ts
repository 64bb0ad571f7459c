import { JarvisError } from '../core/index.js';
import type { Jarvis, SessionHandle } from '../sdk/index.js';
import { checkSessionName, isSessionId } from '../sessions/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { AskFlags } from './command-flags.js';

/**
 * The session `jarvis ask` adds its turn to: `--session <name|id>` (found, or started under a new name),
 * `--continue` (the most recently updated one; a new one, said on stderr, when there is none), else none (a
 * plain question, nothing stored). An unknown `ses_…` id or a bad name is a usage error saying what to do. A new
 * session is started by the question itself, so a question that fails before a turn is stored (no engine, say)
 * leaves no empty session behind.
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
    const found = await system.sessions().find(flags.session);
    if (found !== undefined) return jarvis.session(found.id);
    try {
      // Not stored yet: an id is unknown (session_not_found), a name must be one a session may have.
      if (isSessionId(flags.session)) await system.openSession(flags.session);
      checkSessionName(flags.session);
    } catch (error) {
      throw sessionUsageError(error);
    }
    return jarvis.session(flags.session);
  }
  if (flags.continue !== true) return undefined;
  const latest = await system.sessions().latest();
  if (latest !== undefined) return jarvis.session(latest.id);
  io.stderr.write(
    'No session yet: this question starts a new one; `jarvis ask --continue` adds to it.\n',
  );
  return jarvis.session();
}

/** A session that is not there, or a name that is not accepted, is the caller's mistake (exit 2). */
export function sessionUsageError(error: unknown): unknown {
  if (!JarvisError.isInstance(error)) return error;
  if (error.code === 'session_not_found' || error.code === 'invalid_argument')
    return new UsageError(error.message);
  return error;
}
