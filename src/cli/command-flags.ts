import type { JarvisFlags } from './jarvis-options.js';

// The flags each command hands its action, as commander parses them: one module that both the `*-command.ts`
// file (which declares the options) and the `*-action.ts` file (which runs them) import, so neither imports
// the other.

/** The flags of `jarvis ask` as commander parses them (`stream` and `context` default to true). */
export interface AskFlags extends JarvisFlags {
  readonly agent?: string;
  readonly tools?: readonly string[];
  readonly maxTurns?: number;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly system?: string;
  readonly json?: boolean;
  readonly stream: boolean;
  readonly context: boolean;
  readonly yes?: boolean;
  /** `--session <name|id>`: the question becomes the next turn of this session (a new name starts one). */
  readonly session?: string;
  /** `--continue`: the question becomes the next turn of the most recently updated session. */
  readonly continue?: boolean;
}

/** Flags of `jarvis doctor`. */
export interface DoctorFlags {
  readonly config?: string;
  readonly engine?: string;
  readonly baseUrl?: string;
  readonly timeoutMs: number;
  readonly json?: boolean;
}

/** Flags of `jarvis engines` and `jarvis models`. */
export interface EnginesFlags extends JarvisFlags {
  readonly timeoutMs: number;
  readonly json?: boolean;
}

/** Flags of `jarvis models pull` and `jarvis models rm`. */
export interface ModelsFileFlags {
  readonly config?: string;
}

/** Flags of `jarvis init`. */
export interface InitFlags {
  readonly path?: string;
  readonly config?: string;
  readonly force?: boolean;
  readonly yes?: boolean;
}

/** Flags of the list commands (`tools list`, `agents list`, `telemetry stats`). */
export interface ListFlags extends JarvisFlags {
  readonly json?: boolean;
}

/** Flags of the `jarvis memory` commands. */
export interface MemoryFlags extends JarvisFlags {
  readonly json?: boolean;
  readonly topK?: number;
  readonly yes?: boolean;
}

/** Flags of `jarvis mcp serve`. */
export interface McpServeFlags extends JarvisFlags {
  readonly tools?: readonly string[];
  /** Serve Streamable HTTP on this port (0: a free one) instead of stdio. */
  readonly http?: number;
  readonly allowConfirmation?: boolean;
}

/** Flags of `jarvis scheduler create`. */
export interface SchedulerCreateFlags extends JarvisFlags {
  readonly type: string;
  readonly value: string;
  readonly agent?: string;
  readonly tools?: readonly string[];
  readonly timezone?: string;
  readonly json?: boolean;
}

/** Flags of `jarvis scheduler list`. */
export interface SchedulerListFlags extends JarvisFlags {
  readonly status?: string;
  readonly json?: boolean;
}

/** Flags of `jarvis scheduler logs`. */
export interface SchedulerLogsFlags extends JarvisFlags {
  readonly limit?: number;
  readonly json?: boolean;
}

/** Flags of `jarvis scheduler run-now`. */
export interface SchedulerRunNowFlags extends JarvisFlags {
  readonly json?: boolean;
}

/** Flags of `jarvis sessions list`. */
export interface SessionsListFlags extends JarvisFlags {
  readonly json?: boolean;
  readonly limit?: number;
}

/** Flags of `jarvis sessions show`. */
export interface SessionsShowFlags extends JarvisFlags {
  readonly json?: boolean;
}

/** Flags of `jarvis sessions rm`. */
export interface SessionsRmFlags extends JarvisFlags {
  readonly yes?: boolean;
}

/** Flags of `jarvis sessions export` (`format` is checked by the command: `md` or `json`). */
export interface SessionsExportFlags extends JarvisFlags {
  readonly format: 'md' | 'json';
  readonly output?: string;
}
