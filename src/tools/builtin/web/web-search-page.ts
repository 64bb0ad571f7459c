import { JarvisError, type JarvisErrorCode } from '../../../core/index.js';
import { type HostLookup, resolveAllowedAddress, urlProblem } from './ssrf-guard.js';
import { type HttpResponse, sendHttpRequest, WEB_FETCH_MAX_BYTES } from './web-fetch.js';
import { htmlToText } from './web-search-html.js';

/** Redirects followed before giving up; every hop is checked again. */
export const MAX_REDIRECTS = 5;

/** Options of `fetchPage`. */
export interface PageFetchOptions {
  readonly allowPrivateNetwork: boolean;
  readonly lookup: HostLookup | undefined;
  readonly signal: AbortSignal;
  /** Longest text returned; longer text is cut with a marker. */
  readonly maxChars: number;
  readonly userAgent: string;
  /** Decides which addresses are internal; defaults to `forbiddenAddressReason` (tests narrow it). */
  readonly forbiddenReason?: (address: string) => string | undefined;
}

/** A page read as text. */
export interface FetchedPage {
  /** Where the page was finally read from, after redirects. */
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The text was cut at `maxChars` or the body at 2 MiB. */
  readonly truncated: boolean;
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const ARXIV_PDF = /^(https?:\/\/arxiv\.org)\/pdf\/(.+?)(?:\.pdf)?$/;
const TEXT_TYPES =
  /^(?:text\/|application\/(?:json|xml|javascript|x-yaml|yaml|ld\+json)$|application\/[\w.+-]+\+(?:json|xml)$)/;
const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Reads one http(s) page as text, safe against SSRF: the URL must be plain http(s) without credentials,
 * every address its host resolves to must be public (unless `allowPrivateNetwork`), the connection goes to
 * the checked address, and each of at most 5 redirects is checked the same way. Throws a `JarvisError`
 * whose message says what was refused or what failed.
 */
export async function fetchPage(rawUrl: string, options: PageFetchOptions): Promise<FetchedPage> {
  let url = parsePageUrl(rawUrl.replace(ARXIV_PDF, '$1/abs/$2'), '');
  for (let redirects = 0; ; redirects += 1) {
    const hop = redirects === 0 ? '' : `after a redirect to ${shortUrl(url)}: `;
    const response = await requestChecked(url, options).catch((error: unknown) => {
      throw hop !== '' && JarvisError.isInstance(error)
        ? fetchError(`${hop}${error.message}`, error.code)
        : error;
    });
    const location = redirectTarget(response, url);
    if (location === undefined) return toPage(url, response, options);
    if (redirects >= MAX_REDIRECTS)
      throw fetchError(`too many redirects (more than ${MAX_REDIRECTS})`);
    url = parsePageUrl(location, 'a redirect was refused: ');
  }
}

function parsePageUrl(text: string, context: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fetchError(`${context}${JSON.stringify(text.slice(0, 200))} is not a valid URL`);
  }
  const problem = urlProblem(url);
  if (problem !== undefined) throw fetchError(`${context}${problem}`, 'ssrf_refused');
  url.hash = '';
  return url;
}

/** A URL for messages: no credentials and no query string. */
function shortUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

async function requestChecked(url: URL, options: PageFetchOptions): Promise<HttpResponse> {
  const address = await resolveAllowedAddress(url.hostname, {
    allowPrivateNetwork: options.allowPrivateNetwork,
    signal: options.signal,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    ...(options.forbiddenReason === undefined ? {} : { forbiddenReason: options.forbiddenReason }),
  });
  return sendHttpRequest({
    url,
    address,
    headers: {
      'user-agent': options.userAgent,
      accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
    },
    signal: options.signal,
    maxBytes: WEB_FETCH_MAX_BYTES,
  });
}

/** The absolute URL a redirect points to, or undefined when the response is not a redirect. */
function redirectTarget(response: HttpResponse, from: URL): string | undefined {
  if (!REDIRECTS.has(response.status)) return undefined;
  const location = response.headers.location;
  if (location === undefined || location.trim() === '') {
    throw fetchError(`HTTP ${response.status} redirect without a Location header`);
  }
  try {
    return new URL(location.trim(), from).href;
  } catch {
    throw fetchError(`HTTP ${response.status} redirect to an invalid URL`);
  }
}

function toPage(url: URL, response: HttpResponse, options: PageFetchOptions): FetchedPage {
  if (response.status < 200 || response.status >= 300) throw fetchError(`HTTP ${response.status}`);
  const [mime = '', ...parameters] = (response.headers['content-type'] ?? '')
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  const base = { finalUrl: url.href, status: response.status, contentType: mime };
  if (mime === 'application/pdf') {
    const text = `[This URL points to a PDF file which cannot be read directly. URL: ${url.href}]`;
    return { ...base, text, truncated: false };
  }
  const charset = parameters
    .find((part) => part.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  const raw = decodeBody(response.body, charset);
  const sniffedHtml = mime === '' && /^\s*<(?:!doctype html|html|head|body)\b/i.test(raw);
  if (
    !HTML_TYPES.has(mime) &&
    !sniffedHtml &&
    !TEXT_TYPES.test(mime) &&
    !(mime === '' && !raw.includes('\0'))
  ) {
    throw fetchError(`the page is not text (content type ${mime})`);
  }
  const text = HTML_TYPES.has(mime) || sniffedHtml ? htmlToText(raw) : raw.trim();
  if (text.length <= options.maxChars) return { ...base, text, truncated: response.truncated };
  return {
    ...base,
    text: `${text.slice(0, options.maxChars)}\n\n[Content truncated]`,
    truncated: true,
  };
}

function decodeBody(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function fetchError(message: string, code: JarvisErrorCode = 'web_fetch_failed'): JarvisError {
  return new JarvisError({ code, message });
}
