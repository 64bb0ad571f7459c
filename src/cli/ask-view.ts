import { type AgentStreamEvent, type Clock, EventBus } from '../core/index.js';
import type { JarvisSystem } from '../system/index.js';
import { type Approval, createApproval } from './approval.js';
import { ToolActivity } from './ask-activity.js';
import { AnswerWriter } from './ask-render.js';
import type { LoopStop } from './ask-stop.js';
import { WaitingNotice } from './ask-wait.js';
import type { CliIo } from './cli-io.js';

/** What `jarvis ask` shows on stderr when a call was refused because no one could be asked. */
export const REFUSED_HINT =
  'refused: it needs confirmation and there is no terminal to ask on; pass --yes to allow it';

/** Options of an `AskView`. */
export interface AskViewOptions {
  readonly io: CliIo;
  /** `--yes`: approve every call that needs confirmation. */
  readonly yes: boolean;
  readonly clock?: Clock;
  /** How long a model call may go without a token before the waiting notice shows (default 1000 ms). */
  readonly waitDelayMs?: number;
}

/**
 * Everything `jarvis ask` shows around the answer, fed by the run's bus: the answer writer (stdout), tool
 * activity and the "waiting for the model" notice (stderr), the approval prompt, and what the loop guard said.
 */
export class AskView {
  readonly writer: AnswerWriter;
  readonly activity: ToolActivity;
  readonly notice: WaitingNotice;
  readonly approval: Approval;
  readonly bus: EventBus;
  #loop: LoopStop | undefined;
  #address: string | undefined;
  #lookup: (() => Promise<string>) | undefined;

  constructor(options: AskViewOptions) {
    const { io } = options;
    this.writer = new AnswerWriter(io.stdout);
    const beforeDraw = () => this.writer.endLineOnTerminal();
    const clock = options.clock === undefined ? {} : { clock: options.clock };
    this.activity = new ToolActivity({
      stderr: io.stderr,
      beforeDraw,
      explainFailure: (ended) =>
        this.approval.refusedUnasked(ended.callId) ? REFUSED_HINT : undefined,
      redactor: () => io.session?.redactor,
      ...clock,
    });
    this.notice = new WaitingNotice({
      stderr: io.stderr,
      beforeDraw,
      blocked: () => this.activity.busy,
      ...(options.waitDelayMs === undefined ? {} : { delayMs: options.waitDelayMs }),
      ...clock,
    });
    this.approval = createApproval({
      yes: options.yes,
      io,
      around: (prompt) => this.activity.suspend(prompt),
    });
    this.bus = this.#subscribe(new EventBus());
  }

  /** What the loop guard reported, when it stopped the run. */
  get loopStop(): LoopStop | undefined {
    return this.#loop;
  }

  /** Tells the view where the model lives, so the waiting notice can name its address. */
  attach(system: JarvisSystem, baseUrl: string | undefined): void {
    this.#lookup = () => engineAddress(system, baseUrl);
  }

  /** An event of a streamed run: anything but the start of a turn means the model is answering. */
  onStreamEvent(event: AgentStreamEvent): void {
    if (event.type !== 'turn_start') this.notice.settled();
  }

  /** Erases the spinners and ends stdout's open line; safe to call more than once. */
  close(): void {
    this.notice.settled();
    this.activity.close();
    this.writer.endLine();
  }

  #subscribe(bus: EventBus): EventBus {
    bus.subscribe('tool_call_start', (event) => {
      this.notice.settled();
      this.activity.start(event.data);
    });
    bus.subscribe('tool_call_end', (event) => this.activity.end(event.data));
    bus.subscribe('inference_start', (event) => this.#modelCallStarted(event.data));
    bus.subscribe('inference_end', () => this.notice.settled());
    bus.subscribe('loop_guard_triggered', (event) => {
      const { toolName, repeats } = event.data;
      if (typeof toolName === 'string' && typeof repeats === 'number')
        this.#loop = { toolName, repeats };
    });
    return bus;
  }

  #modelCallStarted(data: Readonly<Record<string, unknown>>): void {
    const model = typeof data.model === 'string' ? data.model : 'the model';
    const engine = typeof data.engine === 'string' ? data.engine : 'engine';
    if (this.#address === undefined && this.#lookup !== undefined) {
      this.#lookup().then(
        (address) => {
          this.#address = address;
        },
        () => undefined,
      );
      this.#lookup = undefined;
    }
    this.notice.started(model, () => this.#address ?? `the '${engine}' engine`);
  }
}

/**
 * The address of the engine's server, as well as the system tells it: an `address` the resolved engine
 * carries, the engine's `baseUrl`, `--base-url`, the configured host, else the engine's key.
 */
export async function engineAddress(
  system: JarvisSystem,
  baseUrl: string | undefined,
): Promise<string> {
  const resolved = await system.engine();
  const exposed =
    (resolved as { readonly address?: unknown }).address ??
    (resolved.engine as { readonly baseUrl?: unknown }).baseUrl;
  if (typeof exposed === 'string' && exposed !== '') return exposed;
  return baseUrl ?? system.config.engine.hosts[resolved.key] ?? `the '${resolved.key}' engine`;
}
