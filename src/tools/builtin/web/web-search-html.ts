import { decodeEntities } from './web-search-entities.js';

/** A piece of an HTML document: text (entities not yet decoded), an opening tag or a closing tag. */
export type HtmlToken =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'open';
      /** Lower case. */
      readonly name: string;
      /** Lower-case names; values with entities decoded. */
      readonly attributes: ReadonlyMap<string, string>;
      readonly selfClosing: boolean;
    }
  | { readonly type: 'close'; readonly name: string };

/** Elements whose content is not markup: it runs to the matching closing tag. */
const RAW_TEXT: ReadonlySet<string> = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
]);
const TAG_NAME = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;
const ATTRIBUTE = /([^\s"'=<>`/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`]+)))?/g;
const closingTagCache = new Map<string, RegExp>();

/**
 * Splits HTML into tokens in one forward pass (linear time, no backtracking regular expressions over the
 * document), tolerating broken markup: a `<` that starts no tag is text, and an unterminated tag or comment
 * ends the document.
 */
export function* tokenizeHtml(html: string): Generator<HtmlToken> {
  let position = 0;
  while (position < html.length) {
    const start = html.indexOf('<', position);
    if (start === -1) {
      yield { type: 'text', text: html.slice(position) };
      return;
    }
    if (start > position) yield { type: 'text', text: html.slice(position, start) };
    const next = skipDeclaration(html, start);
    if (next !== undefined) {
      position = next;
      continue;
    }
    TAG_NAME.lastIndex = start;
    const match = TAG_NAME.exec(html);
    if (match === null) {
      yield { type: 'text', text: '<' };
      position = start + 1;
      continue;
    }
    const nameEnd = TAG_NAME.lastIndex;
    const end = findTagEnd(html, nameEnd);
    if (end === -1) return;
    const name = (match[2] as string).toLowerCase();
    position = end + 1;
    if (match[1] === '/') {
      yield { type: 'close', name };
      continue;
    }
    const inside = html.slice(nameEnd, end);
    const selfClosing = inside.trimEnd().endsWith('/');
    yield { type: 'open', name, attributes: parseAttributes(inside), selfClosing };
    if (RAW_TEXT.has(name) && !selfClosing) position = yield* rawText(html, position, name);
  }
}

/** Where a comment, doctype or processing instruction starting at `start` ends, or undefined for other markup. */
function skipDeclaration(html: string, start: number): number | undefined {
  if (html.startsWith('<!--', start)) {
    const end = html.indexOf('-->', start + 4);
    return end === -1 ? html.length : end + 3;
  }
  const second = html.charAt(start + 1);
  if (second !== '!' && second !== '?') return undefined;
  const end = html.indexOf('>', start);
  return end === -1 ? html.length : end + 1;
}

/** The index of the `>` that ends a tag, skipping quoted attribute values; -1 when the tag never ends. */
function findTagEnd(html: string, from: number): number {
  let quote = '';
  let afterEquals = false;
  for (let index = from; index < html.length; index += 1) {
    const char = html.charAt(index);
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if ((char === '"' || char === "'") && afterEquals) {
      quote = char;
    } else if (char === '>') {
      return index;
    }
    if (char === '=') afterEquals = true;
    else if (!isSpace(char)) afterEquals = false;
  }
  return -1;
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r' || char === '\f';
}

/** Emits the raw content of a `<script>`-like element and its closing tag; returns where parsing resumes. */
function* rawText(html: string, from: number, name: string): Generator<HtmlToken, number> {
  let closing = closingTagCache.get(name);
  if (closing === undefined) {
    closing = new RegExp(`</${name}[\\s/>]`, 'gi');
    closingTagCache.set(name, closing);
  }
  closing.lastIndex = from;
  const match = closing.exec(html);
  const end = match === null ? html.length : match.index;
  if (end > from) yield { type: 'text', text: html.slice(from, end) };
  if (match === null) return html.length;
  yield { type: 'close', name };
  const tagEnd = html.indexOf('>', end);
  return tagEnd === -1 ? html.length : tagEnd + 1;
}

function parseAttributes(inside: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of inside.matchAll(ATTRIBUTE)) {
    const name = (match[1] as string).toLowerCase();
    if (attributes.has(name)) continue;
    attributes.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return attributes;
}

/** Elements dropped with their content when a page is turned into text. */
const SKIPPED: ReadonlySet<string> = new Set([
  'script',
  'style',
  'nav',
  'noscript',
  'template',
  'svg',
  'iframe',
  'head',
  'title',
  'textarea',
  'select',
  'button',
]);

/** Elements that end a line. */
const BLOCKS: ReadonlySet<string> = new Set(
  (
    'address article aside blockquote br dd div dl dt fieldset figcaption figure footer h1 h2 h3 h4 h5 ' +
    'h6 header hr li main ol p pre section table tbody thead tfoot tr ul caption details summary'
  ).split(' '),
);

/** Inline formatting that may split a word (`Hel<b>lo</b>`), so it adds no space. */
const INLINE: ReadonlySet<string> = new Set(
  'a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time u var wbr'.split(
    ' ',
  ),
);

/**
 * Turns an HTML page into readable text: drops scripts, styles, navigation, forms and the head (keeping the
 * title as the first line), ends lines at block elements, decodes entities and collapses whitespace.
 */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  const skipped: string[] = [];
  let title = '';
  let atLineStart = true;
  for (const token of tokenizeHtml(html)) {
    if (token.type === 'text') {
      if (skipped.length === 0) {
        const text = token.text.replace(/\s+/g, ' ');
        parts.push(text);
        if (text.trim() !== '') atLineStart = false;
      } else if (skipped.at(-1) === 'title' && title === '') {
        title = token.text;
      }
    } else if (token.type === 'open' && token.name === 'body') {
      // A head that was never closed ends where the body starts, as in browsers.
      closeSkipped(skipped, 'head');
    } else if (SKIPPED.has(token.name)) {
      if (token.type === 'close') closeSkipped(skipped, token.name);
      else if (!token.selfClosing) skipped.push(token.name);
    } else if (skipped.length === 0 && BLOCKS.has(token.name)) {
      // One line break however many block boundaries meet (`</li><li>`, `</h1><p>`).
      if (!atLineStart) parts.push('\n');
      atLineStart = true;
    } else if (skipped.length === 0 && !INLINE.has(token.name)) {
      parts.push(' ');
    }
  }
  const body = tidyText(decodeEntities(parts.join('')));
  const heading = tidyText(decodeEntities(title)).replace(/\n/g, ' ');
  if (heading === '') return body;
  return body === '' ? heading : `${heading}\n\n${body}`;
}

function closeSkipped(skipped: string[], name: string): void {
  const index = skipped.lastIndexOf(name);
  if (index !== -1) skipped.length = index;
}

/** Collapses runs of spaces, trims every line and keeps at most one empty line in a row. */
export function tidyText(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
