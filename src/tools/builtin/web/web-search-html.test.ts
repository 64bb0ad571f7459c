import { describe, expect, it } from 'vitest';
import { decodeEntities } from './web-search-entities.js';
import { type HtmlToken, htmlToText, tokenizeHtml } from './web-search-html.js';

describe('htmlToText', () => {
  it('keeps the readable text and drops scripts, styles, navigation and the head', () => {
    const html = `<!DOCTYPE html><html><head><title>The  Title</title>
      <style>body { color: red }</style><script>var x = "<p>not text</p>";</script></head>
      <body><nav><a href="/">Home</a> <a href="/a">About</a></nav>
      <!-- a comment with <p>markup</p> -->
      <h1>Heading</h1><p>First <b>bold</b> para&nbsp;graph.</p>
      <p>Caf&eacute; &amp; cr&#232;me &#x2014; &lt;tag&gt; &unknown; &amp</p>
      <ul><li>one</li><li>two</li></ul><noscript>enable JS</noscript>
      <SCRIPT type="module">alert("</scrip")</SCRIPT ><footer>Foot</footer></body></html>`;
    expect(htmlToText(html)).toBe(
      'The Title\n\nHeading\nFirst bold para graph.\nCafé & crème — <tag> &unknown; &\none\ntwo\nFoot',
    );
  });

  it('does not split words at inline tags and separates other elements', () => {
    expect(htmlToText('<p>Hel<b>lo</b> <span>wor</span>ld</p><img alt="x">next')).toBe(
      'Hello world\nnext',
    );
    expect(htmlToText('<div><p>a</p></div><div>b<br><br><br>c</div>')).toBe('a\nb\nc');
    expect(htmlToText('<td>a</td><td>b</td>')).toBe('a b');
  });

  it('tolerates broken markup', () => {
    expect(htmlToText('1 < 2 and 3 > 2')).toBe('1 < 2 and 3 > 2');
    expect(htmlToText('text <a href="x')).toBe('text');
    expect(htmlToText('a <!-- never closed')).toBe('a');
    expect(htmlToText('<script>never closed')).toBe('');
    expect(htmlToText('<head><title>T</title><body>body text')).toBe('T\n\nbody text');
    expect(htmlToText('<p title="a > b">x</p>')).toBe('x');
  });

  it('runs in linear time on hostile input', () => {
    const hostile = [
      '<a'.repeat(300_000),
      '<script'.repeat(100_000),
      '<p x="'.repeat(100_000),
      '<!--'.repeat(200_000),
      '&#'.repeat(300_000),
      `${'<div>'.repeat(100_000)}x`,
    ];
    for (const html of hostile) {
      const started = performance.now();
      htmlToText(html);
      expect(performance.now() - started, html.slice(0, 10)).toBeLessThan(1_500);
    }
  });
});

describe('tokenizeHtml', () => {
  it('reads attributes in any quoting and decodes their entities', () => {
    const tokens = [
      ...tokenizeHtml(`<a HREF="/l/?a=1&amp;b=2" class='x y' data-v=plain disabled>t</a>`),
    ];
    const open = tokens[0] as Extract<HtmlToken, { type: 'open' }>;
    expect(open.name).toBe('a');
    expect(Object.fromEntries(open.attributes)).toEqual({
      href: '/l/?a=1&b=2',
      class: 'x y',
      'data-v': 'plain',
      disabled: '',
    });
    expect(tokens.slice(1)).toEqual([
      { type: 'text', text: 't' },
      { type: 'close', name: 'a' },
    ]);
  });
});

describe('decodeEntities', () => {
  it('decodes numeric and common named references and leaves the rest', () => {
    expect(decodeEntities('&#39;&#x27;&#X41;&#0;&#x110000;&#xD800;&hellip;&copy &foo;')).toBe(
      "''A\ufffd\ufffd\ufffd…&copy &foo;",
    );
  });
});
