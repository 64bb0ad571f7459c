/** The named character references pages commonly use (the full HTML table has over 2,000). */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
  ['ensp', '\u2002'],
  ['emsp', '\u2003'],
  ['thinsp', '\u2009'],
  ['zwnj', '\u200c'],
  ['zwj', '\u200d'],
  ['shy', '\u00ad'],
  ['copy', '©'],
  ['reg', '®'],
  ['trade', '™'],
  ['hellip', '…'],
  ['mdash', '—'],
  ['ndash', '–'],
  ['minus', '−'],
  ['lsquo', '‘'],
  ['rsquo', '’'],
  ['sbquo', '‚'],
  ['ldquo', '“'],
  ['rdquo', '”'],
  ['bdquo', '„'],
  ['laquo', '«'],
  ['raquo', '»'],
  ['lsaquo', '‹'],
  ['rsaquo', '›'],
  ['bull', '•'],
  ['middot', '·'],
  ['para', '¶'],
  ['sect', '§'],
  ['deg', '°'],
  ['plusmn', '±'],
  ['times', '×'],
  ['divide', '÷'],
  ['frac12', '½'],
  ['frac14', '¼'],
  ['frac34', '¾'],
  ['sup2', '²'],
  ['sup3', '³'],
  ['micro', 'µ'],
  ['cent', '¢'],
  ['pound', '£'],
  ['euro', '€'],
  ['yen', '¥'],
  ['iexcl', '¡'],
  ['iquest', '¿'],
  ['larr', '←'],
  ['rarr', '→'],
  ['uarr', '↑'],
  ['darr', '↓'],
  ['harr', '↔'],
  ['check', '✓'],
  ['star', '☆'],
  ['hearts', '♥'],
  ['auml', 'ä'],
  ['ouml', 'ö'],
  ['uuml', 'ü'],
  ['Auml', 'Ä'],
  ['Ouml', 'Ö'],
  ['Uuml', 'Ü'],
  ['szlig', 'ß'],
  ['eacute', 'é'],
  ['egrave', 'è'],
  ['ecirc', 'ê'],
  ['aacute', 'á'],
  ['agrave', 'à'],
  ['acirc', 'â'],
  ['iacute', 'í'],
  ['oacute', 'ó'],
  ['uacute', 'ú'],
  ['ntilde', 'ñ'],
  ['ccedil', 'ç'],
  ['Eacute', 'É'],
  ['aring', 'å'],
  ['oslash', 'ø'],
  ['aelig', 'æ'],
]);

/** Names the HTML spec still decodes without the closing `;`. */
const LEGACY_WITHOUT_SEMICOLON: ReadonlySet<string> = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp']);

const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([a-zA-Z][a-zA-Z0-9]{1,31}))(;?)/g;

/** Decodes character references (`&amp;`, `&#39;`, `&#x27;`, common names); unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    REFERENCE,
    (whole, decimal?: string, hex?: string, name?: string, semicolon?: string) => {
      if (decimal !== undefined) return fromCodePoint(Number.parseInt(decimal, 10));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      const value = name === undefined ? undefined : NAMED.get(name);
      if (value === undefined) return whole;
      if (semicolon === '' && !LEGACY_WITHOUT_SEMICOLON.has(name as string)) return whole;
      return value;
    },
  );
}

/** A code point as text; NUL, surrogates and values beyond Unicode become U+FFFD as in browsers. */
function fromCodePoint(codePoint: number): string {
  if (codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
    return '\ufffd';
  }
  return String.fromCodePoint(codePoint);
}
