/** Content cut to at most `maxChars` characters, with a marker saying how much was left out. */
export interface CappedOutput {
  readonly content: string;
  readonly truncated: boolean;
  readonly originalLength: number;
}

/** Caps `content` at `maxChars` characters (never splitting a surrogate pair) and appends a truncation marker. */
export function capOutput(content: string, maxChars: number): CappedOutput {
  if (content.length <= maxChars)
    return { content, truncated: false, originalLength: content.length };
  let end = maxChars;
  const code = content.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  const marker = `\n\n[output truncated: showing the first ${end} of ${content.length} characters]`;
  return {
    content: content.slice(0, end) + marker,
    truncated: true,
    originalLength: content.length,
  };
}
