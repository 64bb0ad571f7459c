import { didYouMean, safeForTerminal } from '../core/index.js';

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
