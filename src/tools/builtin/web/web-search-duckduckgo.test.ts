import { describe, expect, it } from 'vitest';
import { decodeDuckDuckGoUrl, parseDuckDuckGoHtml } from './web-search-duckduckgo.js';

/** The shape of html.duckduckgo.com results (trimmed). */
const DDG_PAGE = `<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body>
<div class="results">
  <div class="result results_links results_links_deep result--ad">
    <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy now</a></h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?x">An ad</a>
  </div>
  <div class="result results_links results_links_deep web-result">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fdocs%3Fa%3D1%26b%3D2&amp;rut=abc">Example <b>Domain</b> &amp; Docs</a>
    </h2>
    <a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fdocs">example.com/docs</a>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">This domain is for <b>illustrative</b> examples.</a>
  </div>
  <div class="result results_links web-result">
    <h2 class="result__title"><a class="result__a" href="https://direct.example.org/page">Direct link</a></h2>
    <td class="result__snippet">Snippet in a <span>cell</span>.</td>
  </div>
  <div class="result web-result">
    <h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=javascript%3Aalert(1)">Bad</a></h2>
  </div>
</div></body></html>`;

describe('parseDuckDuckGoHtml', () => {
  it('reads titles, decoded URLs and snippets, skipping ads and non-http links', () => {
    const page = parseDuckDuckGoHtml(DDG_PAGE);
    expect(page.noResults).toBe(false);
    expect(page.hits).toEqual([
      {
        title: 'Example Domain & Docs',
        url: 'https://example.com/docs?a=1&b=2',
        snippet: 'This domain is for illustrative examples.',
      },
      {
        title: 'Direct link',
        url: 'https://direct.example.org/page',
        snippet: 'Snippet in a cell.',
      },
    ]);
  });

  it('tells a page without results from a page that is not a results page', () => {
    expect(parseDuckDuckGoHtml('<div class="no-results">No results.</div>')).toEqual({
      hits: [],
      noResults: true,
    });
    expect(parseDuckDuckGoHtml('<html><body>Please verify you are human</body></html>')).toEqual({
      hits: [],
      noResults: false,
    });
  });
});

describe('decodeDuckDuckGoUrl', () => {
  it('unwraps uddg redirects and refuses what is not http(s)', () => {
    expect(decodeDuckDuckGoUrl('//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F&rut=1')).toBe(
      'https://a.example/',
    );
    expect(decodeDuckDuckGoUrl('https://duckduckgo.com/y.js?ad=1')).toBeUndefined();
    expect(decodeDuckDuckGoUrl('//duckduckgo.com/l/?uddg=file%3A%2F%2F%2Fetc')).toBeUndefined();
    expect(decodeDuckDuckGoUrl('mailto:a@b.c')).toBeUndefined();
    expect(decodeDuckDuckGoUrl(undefined)).toBeUndefined();
    expect(decodeDuckDuckGoUrl('http://[bad')).toBeUndefined();
  });
});
