import { EventBus } from '../core/index.js';
import type { AskOptions, Jarvis } from '../sdk/index.js';
import { type Approval, createApproval } from './approval.js';
import { ToolActivity } from './ask-activity.js';
import { withAdvice } from './ask-advice.js';
import type { AskFlags } from './ask-command.js';
import { formatAskJson } from './ask-json.js';
import { readQuery } from './ask-query.js';
import { AnswerWriter, StreamedAnswer } from './ask-render.js';
import type { CliIo } from './cli-io.js';
import { openJarvis } from './jarvis-options.js';

/** What `jarvis ask` shows on stderr when a call was refused because no one could be asked. */
export const REFUSED_HINT =
  'refused: it needs confirmation and there is no terminal to ask on; pass --yes to allow it';

/**
 * `jarvis ask`: reads the question, opens the SDK with the flags, and prints the answer (streamed, whole, or
 * as JSON) while tool calls show on stderr. Ctrl-C cancels the run; the SDK is always closed.
 */
export async function runAsk(words: readonly string[], flags: AskFlags, io: CliIo): Promise<void> {
  const query = await readQuery(words, io);
  const writer = new AnswerWriter(io.stdout);
  let approval: Approval | undefined;
  const activity = new ToolActivity({
    stderr: io.stderr,
    beforeDraw: () => writer.endLineOnTerminal(),
    explainFailure: (ended) =>
      approval?.refusedUnasked(ended.callId) === true ? REFUSED_HINT : undefined,
  });
  approval = createApproval({
    yes: flags.yes === true,
    io,
    around: (prompt) => activity.suspend(prompt),
  });
  const bus = toolActivityBus(activity);
  let jarvis: Jarvis | undefined;
  try {
    jarvis = await openJarvis(flags, io, { confirm: approval.confirm, bus });
    await answer(jarvis, query, flags, io, writer);
  } catch (error) {
    throw withAdvice(error);
  } finally {
    activity.close();
    writer.endLine();
    await closeQuietly(jarvis, io);
  }
}

/** Asks and prints: JSON, the whole answer, or the streamed answer. */
async function answer(
  jarvis: Jarvis,
  query: string,
  flags: AskFlags,
  io: CliIo,
  writer: AnswerWriter,
): Promise<void> {
  const options = askOptions(flags, io.signal);
  if (flags.json === true) {
    io.stdout.write(formatAskJson(await jarvis.askFull(query, options)));
    return;
  }
  if (!flags.stream) {
    writer.write((await jarvis.askFull(query, options)).content);
    writer.endLine();
    return;
  }
  const streamed = new StreamedAnswer(writer);
  for await (const event of jarvis.stream(query, options)) streamed.handle(event);
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

/** A bus whose tool call events draw the tool activity on stderr (for every agent, streaming or not). */
function toolActivityBus(activity: ToolActivity): EventBus {
  const bus = new EventBus();
  bus.subscribe('tool_call_start', (event) => activity.start(event.data));
  bus.subscribe('tool_call_end', (event) => activity.end(event.data));
  return bus;
}

async function closeQuietly(jarvis: Jarvis | undefined, io: CliIo): Promise<void> {
  try {
    await jarvis?.close();
  } catch (error) {
    io.stderr.write(
      `warning: closing failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
