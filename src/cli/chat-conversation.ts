import type { Jarvis, SessionHandle } from '../sdk/index.js';
import type { SessionInfo } from '../sessions/index.js';
import type { JarvisSystem } from '../system/index.js';
import { describeArguments } from './approval.js';
import { askOptions } from './ask-action.js';
import { withAdvice } from './ask-advice.js';
import { StreamedAnswer } from './ask-render.js';
import { sessionUsageError } from './ask-session.js';
import { stopMessage, stopReasonOf } from './ask-stop.js';
import { AskView } from './ask-view.js';
import type { ChatFlags } from './chat-flags.js';
import type { ChatInput } from './chat-input.js';
import { formatError, isAbort, UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import { openJarvis } from './jarvis-options.js';

/** The agent and tools the next answers use (undefined: the flags', else the config's). */
export interface ChatSettings {
  readonly agent: string | undefined;
  readonly tools: readonly string[] | undefined;
}

/**
 * One chat: the open SDK, the session its questions become turns of, the agent, tools and model of the next
 * answer, and the view that shows answers and tool activity. Answers are streamed; a failure prints one error
 * (with advice, redacted) and the chat goes on. `/model` reopens the SDK with the other model.
 */
export class ChatConversation {
  readonly #io: CliIo;
  readonly #input: ChatInput;
  #flags: ChatFlags;
  #jarvis: Jarvis;
  #view: AskView;
  #session: SessionHandle;
  /** The session's id once it exists in the store (a new chat's session starts with its first question). */
  #sessionId: string | undefined;
  #settings: ChatSettings;

  private constructor(io: CliIo, input: ChatInput, flags: ChatFlags, opened: Opened) {
    this.#io = io;
    this.#input = input;
    this.#flags = flags;
    this.#jarvis = opened.jarvis;
    this.#view = opened.view;
    this.#session = opened.jarvis.session();
    this.#sessionId = undefined;
    this.#settings = { agent: flags.agent, tools: flags.tools };
  }

  /** Opens the SDK with the flags and picks the session: `--session`, `--continue`, else a new one. */
  static async open(flags: ChatFlags, io: CliIo, input: ChatInput): Promise<ChatConversation> {
    if (flags.session !== undefined && flags.continue === true)
      throw new UsageError('--session and --continue both pick a session: give one of them');
    const opened = await openChat(flags, io, input);
    const chat = new ChatConversation(io, input, flags, opened);
    try {
      await chat.#pickFirstSession();
    } catch (error) {
      await chat.close();
      throw error;
    }
    return chat;
  }

  /** The system of the open SDK. */
  system(): Promise<JarvisSystem> {
    return this.#jarvis.system();
  }

  /** The agent and tools of the next answers. */
  get settings(): ChatSettings {
    return this.#settings;
  }

  /** The session's id, once it is stored. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The session as stored, or undefined for a new one that has no turn yet. */
  async sessionInfo(): Promise<SessionInfo | undefined> {
    if (this.#sessionId === undefined) return undefined;
    return (await this.system()).sessions().find(this.#sessionId);
  }

  /** Streams the answer to `question` as the session's next turn; false when it failed (printed on stderr). */
  async answer(question: string, signal: AbortSignal): Promise<boolean> {
    const view = this.#view;
    const streamed = new StreamedAnswer(view.writer);
    try {
      let outcome: { turns: number; metadata: Readonly<Record<string, unknown>> } | undefined;
      for await (const event of this.#session.stream(question, this.#askOptions(signal))) {
        view.onStreamEvent(event);
        streamed.handle(event);
        if (event.type === 'result') outcome = event.result;
      }
      view.close();
      const reason = outcome === undefined ? undefined : stopReasonOf(outcome.metadata);
      if (reason !== undefined && outcome !== undefined)
        this.#io.stderr.write(stopMessage(reason, outcome.turns, view.loopStop));
      return true;
    } catch (error) {
      view.close();
      this.#io.stderr.write(formatError(withAdvice(error), this.#io.session?.redactor));
      return isAbort(error) && !this.#io.signal.aborted;
    } finally {
      this.#learnSessionId();
    }
  }

  /** Starts a new session (stored with its first question). */
  startNewSession(): void {
    this.#session = this.#jarvis.session();
    this.#sessionId = undefined;
  }

  /** Continues the stored session with this id or name; an unknown one is a usage error. */
  async resume(idOrName: string): Promise<SessionInfo> {
    const found = await (await this.system()).sessions().find(idOrName);
    if (found === undefined)
      throw new UsageError(
        `no session '${untrustedLine(idOrName.slice(0, 80))}'; /sessions lists the recent ones`,
      );
    this.#session = this.#jarvis.session(found.id);
    this.#sessionId = found.id;
    return found;
  }

  /** Uses this agent and these tools for the next answers. */
  configure(settings: Partial<ChatSettings>): void {
    this.#settings = { ...this.#settings, ...settings };
  }

  /** The engine's key and the model the next answer uses (resolving the engine when not done yet). */
  async engine(): Promise<{ readonly key: string; readonly model: string }> {
    const resolved = await (await this.system()).engine(this.#io.signal);
    return { key: resolved.key, model: resolved.model };
  }

  /** Answers with another model from now on: the SDK is reopened with it, the session kept. */
  async useModel(model: string | undefined): Promise<void> {
    const flags = model === undefined ? this.#flags : { ...this.#flags, model };
    const opened = await openChat(flags, this.#io, this.#input);
    await closeJarvis(this.#jarvis, this.#view);
    this.#flags = flags;
    this.#jarvis = opened.jarvis;
    this.#view = opened.view;
    this.#session =
      this.#sessionId === undefined
        ? opened.jarvis.session()
        : opened.jarvis.session(this.#sessionId);
  }

  /** Closes the SDK (and the view's spinners). */
  async close(): Promise<void> {
    await closeJarvis(this.#jarvis, this.#view);
  }

  #askOptions(signal: AbortSignal) {
    const { agent, tools } = this.#settings;
    return {
      ...askOptions({ ...this.#flags, stream: true }, signal),
      ...(agent === undefined ? {} : { agent }),
      ...(tools === undefined ? {} : { tools }),
    };
  }

  async #pickFirstSession(): Promise<void> {
    const system = await this.system();
    if (this.#flags.session !== undefined) {
      const found = await system.sessions().find(this.#flags.session);
      if (found !== undefined) {
        this.#session = this.#jarvis.session(found.id);
        this.#sessionId = found.id;
        return;
      }
      const started = await system.openSession(this.#flags.session).catch((error: unknown) => {
        throw sessionUsageError(error);
      });
      this.#session = this.#jarvis.session(started.id);
      this.#sessionId = started.id;
      return;
    }
    if (this.#flags.continue !== true) return;
    const latest = await system.sessions().latest();
    if (latest === undefined) return;
    this.#session = this.#jarvis.session(latest.id);
    this.#sessionId = latest.id;
  }

  #learnSessionId(): void {
    // After a question the handle's session exists, unless the question failed before anything was stored.
    this.#sessionId ??= this.#session.id;
  }
}

/** An open SDK with the view wired to its bus. */
interface Opened {
  readonly jarvis: Jarvis;
  readonly view: AskView;
}

/**
 * Opens the SDK for the chat: its bus feeds a new view; a call that needs confirmation is approved with
 * `--yes`, asked through the chat's line editor on a terminal (with the spinner out of the way), else refused.
 */
async function openChat(flags: ChatFlags, io: CliIo, input: ChatInput): Promise<Opened> {
  const view = new AskView({ io, yes: flags.yes === true });
  const confirm: AskConfirm = (request) => {
    if (flags.yes === true || !input.interactive) return view.approval.confirm(request);
    return view.activity.suspend(async () => {
      const question = `Allow ${untrustedLine(request.toolName)} with ${untrustedLine(describeArguments(request.arguments))}? [y/N] `;
      const reply = await input.ask(question);
      return reply !== undefined && /^\s*y(es)?\s*$/i.test(reply);
    });
  };
  const jarvis = await openJarvis(flags, io, { confirm, bus: view.bus });
  view.attach(await jarvis.system(), flags.baseUrl);
  return { jarvis, view };
}

type AskConfirm = AskView['approval']['confirm'];

async function closeJarvis(jarvis: Jarvis, view: AskView): Promise<void> {
  view.close();
  await jarvis.close().catch(() => undefined);
}
