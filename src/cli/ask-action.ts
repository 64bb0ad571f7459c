import type { AgentResult } from '../core/index.js';
import type { AskOptions, Jarvis, SessionHandle } from '../sdk/index.js';
import { withAdvice } from './ask-advice.js';
import { formatAskJson } from './ask-json.js';
import { readQuery } from './ask-query.js';
import { StreamedAnswer } from './ask-render.js';
import { askSession } from './ask-session.js';
import { answerTextOf, stopMessage, stopReasonOf } from './ask-stop.js';
import { AskView } from './ask-view.js';
import { CliExit, ExitCode } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText } from './cli-output.js';
import type { AskFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';

/** What a finished run left to report: its turns and metadata (for the stop reason). */
type RunOutcome = Pick<AgentResult, 'turns' | 'metadata'>;

/** Who answers: the SDK for a plain question, or the session the question becomes a turn of. */
type Asker = Pick<Jarvis, 'askFull' | 'stream'> | SessionHandle;

/**
 * `jarvis ask`: reads the question, opens the SDK with the flags, and prints the answer (streamed, whole, or
 * as JSON) while tool calls show on stderr. A run stopped before a final answer (turn limit, loop guard)
 * prints what it has, says why on stderr and exits 3. Ctrl-C cancels the run; the SDK is always closed. With
 * `--session`/`--continue` the question is the next turn of a session (see `askSession`).
 */
export async function runAsk(words: readonly string[], flags: AskFlags, io: CliIo): Promise<void> {
  const query = await readQuery(words, io);
  try {
    await askOnce(query, flags, io);
  } catch (error) {
    const { NoModelError } = await import('../system/index.js');
    const missing = NoModelError.find(error);
    if (missing === undefined || io.signal.aborted) throw error;
    const { offerFirstModel } = await import('./first-run.js');
    if (!(await offerFirstModel(missing, flags, io))) throw new CliExit(ExitCode.failure);
    await askOnce(query, flags, io);
  }
}

/** One attempt: opens the SDK, answers, reports a stop; the SDK is always closed. */
async function askOnce(query: string, flags: AskFlags, io: CliIo): Promise<void> {
  const view = new AskView({ io, yes: flags.yes === true });
  let jarvis: Jarvis | undefined;
  try {
    jarvis = await openJarvis(flags, io, { confirm: view.approval.confirm, bus: view.bus });
    view.attach(await jarvis.system(), flags.baseUrl);
    const asker = (await askSession(jarvis, flags, io)) ?? jarvis;
    const outcome = await answer(asker, query, flags, io, view);
    reportStop(outcome, view, io);
  } catch (error) {
    throw withAdvice(error);
  } finally {
    view.close();
    await closeQuietly(jarvis, io);
  }
}

/** Asks and prints: JSON (with the session and history report in a session), the whole answer, or the stream. */
async function answer(
  jarvis: Asker,
  query: string,
  flags: AskFlags,
  io: CliIo,
  view: AskView,
): Promise<RunOutcome> {
  const options = askOptions(flags, io.signal);
  if (flags.json === true) {
    const result = await jarvis.askFull(query, options);
    io.stdout.write(formatAskJson(result, stopReasonOf(result.metadata)));
    return result;
  }
  if (!flags.stream) {
    const result = await jarvis.askFull(query, options);
    view.writer.write(answerTextOf(result));
    view.writer.endLine();
    return result;
  }
  const streamed = new StreamedAnswer(view.writer);
  let outcome: RunOutcome = { turns: 0, metadata: {} };
  for await (const event of jarvis.stream(query, options)) {
    view.onStreamEvent(event);
    streamed.handle(event);
    if (event.type === 'result') outcome = event.result;
  }
  return outcome;
}

/** For a run stopped before a final answer: the reason on stderr, then exit code 3. */
function reportStop(outcome: RunOutcome, view: AskView, io: CliIo): void {
  const reason = stopReasonOf(outcome.metadata);
  if (reason === undefined) return;
  view.close();
  io.stderr.write(stopMessage(reason, outcome.turns, view.loopStop));
  throw new CliExit(ExitCode.stopped);
}

/** The SDK's per-question options from the flags (left out when not given, so the config decides). */
export function askOptions(flags: AskFlags, signal: AbortSignal): AskOptions {
  return {
    signal,
    ...(flags.agent === undefined ? {} : { agent: flags.agent }),
    ...(flags.tools === undefined ? {} : { tools: flags.tools }),
    ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
    ...(flags.temperature === undefined ? {} : { temperature: flags.temperature }),
    ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
    ...(flags.system === undefined ? {} : { systemPrompt: flags.system }),
    ...(flags.context === false ? { context: false } : {}),
  };
}

async function closeQuietly(jarvis: Jarvis | undefined, io: CliIo): Promise<void> {
  try {
    await jarvis?.close();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`warning: closing failed: ${diagnosticText(message, io.session?.redactor)}\n`);
  }
}
