import type { JarvisFlags } from './jarvis-options.js';

/** The flags of `jarvis chat` as commander parses them (`context` defaults to true). */
export interface ChatFlags extends JarvisFlags {
  readonly agent?: string;
  readonly tools?: readonly string[];
  readonly maxTurns?: number;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly system?: string;
  readonly context: boolean;
  readonly yes?: boolean;
  /** `--session <name|id>`: continue this session (a new name starts one). */
  readonly session?: string;
  /** `--continue`: continue the most recently updated session. */
  readonly continue?: boolean;
}
