import {
  createToolSpec,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../../../core/index.js';
import { BaseTool } from '../../base-tool.js';
import { formatRun } from './code-interpreter-format.js';
import type { SandboxBackend, SandboxSelection } from './sandbox-backend.js';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits.js';
import { type SandboxSelectOptions, selectSandbox } from './sandbox-select.js';

/** Options of the `code_interpreter` tool. */
export interface CodeInterpreterToolOptions {
  /** A backend already chosen (e.g. at start-up); otherwise one is chosen with `select` on first use and kept. */
  readonly sandbox?: SandboxSelection | Promise<SandboxSelection>;
  readonly select?: SandboxSelectOptions;
  /** Characters of output shown to the model (default 10,000). */
  readonly maxOutputChars?: number;
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_TIMEOUT_SECONDS = 60;

/** Runs Python in a sandbox (bubblewrap by default) and returns its output; refuses when no sandbox exists. */
export class CodeInterpreterTool extends BaseTool {
  readonly toolId = 'code_interpreter';
  readonly spec: ToolSpec = createToolSpec({
    name: 'code_interpreter',
    description:
      'Execute Python code in an isolated sandbox (no network, no access to your files, fresh /tmp each call) ' +
      'and return stdout, stderr and the exit status.',
    parameters: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Python code to execute.' },
        timeout_seconds: {
          type: 'number',
          description: `Wall-clock limit in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}).`,
        },
      },
      required: ['code'],
    },
    category: 'code',
  });
  private readonly options: CodeInterpreterToolOptions;
  private selection: Promise<SandboxSelection> | undefined;

  constructor(options: CodeInterpreterToolOptions = {}) {
    super();
    this.options = options;
    if (options.sandbox !== undefined) this.selection = Promise.resolve(options.sandbox);
  }

  /** The backend in use (chosen once), or why there is none. */
  sandbox(): Promise<SandboxSelection> {
    this.selection ??= selectSandbox(this.options.select);
    return this.selection;
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    const code = params.code;
    if (typeof code !== 'string' || code.trim() === '')
      return this.failure('No code provided.', 'invalid_arguments');
    const maxChars =
      this.options.select?.limits?.maxCodeChars ?? DEFAULT_SANDBOX_LIMITS.maxCodeChars;
    if (code.length > maxChars)
      return this.failure(
        `Code too long: ${code.length} characters (at most ${maxChars}).`,
        'invalid_arguments',
      );
    const timeout = parseTimeout(params.timeout_seconds);
    if (typeof timeout === 'string') return this.failure(timeout, 'invalid_arguments');
    const selection = await this.sandbox();
    if (!selection.ok)
      return this.failure(
        `Code interpreter unavailable: no sandbox backend (${selection.reason}).`,
        'tool_error',
        {
          metadata: { sandbox: 'none' },
        },
      );
    return this.runIn(selection.backend, code, timeout, context?.signal);
  }

  private async runIn(
    backend: SandboxBackend,
    code: string,
    timeoutSeconds: number,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    const run = await backend.run({
      code,
      timeoutMs: timeoutSeconds * 1000,
      ...(signal ? { signal } : {}),
    });
    const formatted = formatRun(run, {
      sandbox: backend.name,
      seccomp: backend.seccomp,
      timeoutSeconds,
      maxOutputChars: this.options.maxOutputChars ?? 10_000,
      maxStreamBytes:
        this.options.select?.limits?.maxStreamBytes ?? DEFAULT_SANDBOX_LIMITS.maxStreamBytes,
    });
    const extra = { metadata: formatted.metadata, latencySeconds: run.elapsedMs / 1000 };
    return formatted.success
      ? this.success(formatted.content, extra)
      : this.failure(formatted.content, formatted.errorCode, extra);
  }
}

/** The timeout in seconds (default 10, capped at 60), or an error message for a bad value. */
function parseTimeout(value: unknown): number | string {
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    return `timeout_seconds must be a positive number of seconds (at most ${MAX_TIMEOUT_SECONDS}), got ${JSON.stringify(value)}.`;
  return Math.min(value, MAX_TIMEOUT_SECONDS);
}
