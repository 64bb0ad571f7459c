import { didYouMean } from './did-you-mean.js';
import { JarvisError } from './errors.js';
import { safeForTerminal } from './terminal-text.js';

/**
 * `Unknown <what> 'x'. Available: a, b` plus `. Did you mean 'y'?` when an available name is close; the name is
 * shown terminal-safe on one line (it may come from a model or a command line).
 */
export function unknownNameMessage(
  what: string,
  name: string,
  available: readonly string[],
): string {
  const shown = safeForTerminal(name, { singleLine: true });
  const list = [...available].sort().join(', ') || 'none';
  const suggestion = didYouMean(name, available);
  return `Unknown ${what} '${shown}'. Available: ${list}${suggestion === '' ? '' : `.${suggestion}`}`;
}

/** Options of `NoSuchToolError`; `message` defaults to `unknownNameMessage('tool', …)`. */
export interface NoSuchToolErrorOptions {
  readonly toolName: string;
  readonly availableTools: readonly string[];
  readonly message?: string;
}

/** A tool name nobody registered (code `unknown_tool`); carries the name and the names that are available. */
export class NoSuchToolError extends JarvisError {
  /** The name that was asked for, as given. */
  readonly toolName: string;
  /** The tool names that could have been used instead. */
  readonly availableTools: readonly string[];

  constructor(options: NoSuchToolErrorOptions) {
    const { toolName, availableTools } = options;
    super({
      code: 'unknown_tool',
      message: options.message ?? unknownNameMessage('tool', toolName, availableTools),
    });
    this.toolName = toolName;
    this.availableTools = [...availableTools];
  }
}

/** Options of `NoSuchAgentError`; `message` defaults to `unknownNameMessage('agent', …)`. */
export interface NoSuchAgentErrorOptions {
  readonly agentName: string;
  readonly availableAgents: readonly string[];
  readonly message?: string;
}

/** An agent name nobody registered (code `unknown_agent`); carries the name and the names that are available. */
export class NoSuchAgentError extends JarvisError {
  /** The name that was asked for, as given. */
  readonly agentName: string;
  /** The agent names that could have been used instead. */
  readonly availableAgents: readonly string[];

  constructor(options: NoSuchAgentErrorOptions) {
    const { agentName, availableAgents } = options;
    super({
      code: 'unknown_agent',
      message: options.message ?? unknownNameMessage('agent', agentName, availableAgents),
    });
    this.agentName = agentName;
    this.availableAgents = [...availableAgents];
  }
}

/** Options of `NoSuchEngineError`; `message` defaults to `unknownNameMessage('engine', …)`. */
export interface NoSuchEngineErrorOptions {
  readonly engineKey: string;
  readonly availableEngines: readonly string[];
  readonly message?: string;
}

/** An engine key nobody registered (code `unknown_engine`); carries the key and the keys that are available. */
export class NoSuchEngineError extends JarvisError {
  /** The key that was asked for, as given. */
  readonly engineKey: string;
  /** The engine keys that could have been used instead. */
  readonly availableEngines: readonly string[];

  constructor(options: NoSuchEngineErrorOptions) {
    const { engineKey, availableEngines } = options;
    super({
      code: 'unknown_engine',
      message: options.message ?? unknownNameMessage('engine', engineKey, availableEngines),
    });
    this.engineKey = engineKey;
    this.availableEngines = [...availableEngines];
  }
}
