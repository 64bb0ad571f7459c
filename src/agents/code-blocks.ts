import { capOutput } from '../tools/index.js';

/** Most characters of a tool's output fed back to the model by the code-running agents. */
export const CODE_OBSERVATION_MAX_CHARS = 4000;

/** The code of the first ```python (or ```py) block; `allowBare` also accepts an unlabelled ``` block. */
export function extractPythonBlock(text: string, allowBare = false): string | undefined {
  const pattern = allowBare
    ? /```(?:python3?|py)?[ \t]*\n([\s\S]*?)```/i
    : /```(?:python3?|py)[ \t]*\n([\s\S]*?)```/i;
  const code = pattern.exec(text)?.[1];
  return code === undefined || code.trim() === '' ? undefined : code;
}

/** Cuts an observation to `CODE_OBSERVATION_MAX_CHARS` with a marker. */
export function truncateObservation(text: string): string {
  return capOutput(text, CODE_OBSERVATION_MAX_CHARS).content;
}
