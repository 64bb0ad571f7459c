/**
 * Text that did not come from us (model output, tool results, stored prompts, config keys, server messages)
 * is made safe before a terminal shows it: escape sequences, other control characters and bidirectional
 * overrides become visible escapes, so nothing can move the cursor, clear lines, set links or titles, or
 * reorder what a person reads.
 */

/** C0 controls except tab and newline, DEL, C1 controls, and the bidi embedding/override/isolate characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Shows one unsafe character visibly: `ESC` as `^[`, others as `\u{XX}`. */
function visible(char: string): string {
  if (char === '\u001b') return '^[';
  const code = char.codePointAt(0) ?? 0;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Returns `text` with every character that could drive a terminal replaced by a visible escape; newlines
 * and tabs stay (pass `singleLine` to show them as `\n` and `\t` too, for one-line displays), and `\r\n`
 * becomes `\n`.
 */
export function safeForTerminal(
  text: string,
  options: { readonly singleLine?: boolean } = {},
): string {
  const normalised = text.replace(/\r\n/g, '\n');
  const safe = normalised.replace(UNSAFE, visible);
  return options.singleLine ? safe.replace(/\n/g, '\\n').replace(/\t/g, '\\t') : safe;
}

/** True when `text` holds nothing that `safeForTerminal` would change. */
export function isTerminalSafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return !UNSAFE.test(text) && !text.includes('\r');
}
