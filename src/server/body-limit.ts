import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * Refuses request bodies over `maxBytes` with `tooLarge`. A body with a `Content-Length` (what clients send) is
 * judged by that header alone: Node's parser never delivers more than it says, and the request stays on
 * `@hono/node-server`'s fast path, where `c.req.text()` reads the socket directly instead of building a Web
 * `Request` and a stream (which cost more CPU than the rest of a small request). A chunked body is counted
 * as it arrives, by Hono's `bodyLimit`.
 */
export function limitBodyBytes(
  maxBytes: number,
  tooLarge: (c: Context) => Response,
): MiddlewareHandler {
  const counted = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const length = declaredLength(c);
    if (length === undefined) return counted(c, next);
    if (!within(length, maxBytes)) return tooLarge(c);
    await next();
  };
}

/**
 * The request body as text, or `undefined` when it is over `maxBytes`: judged by its `Content-Length` when it
 * has one (then read on `@hono/node-server`'s fast path, see `limitBodyBytes`), else counted as it arrives and
 * abandoned at the first byte over. One read, no middleware.
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string | undefined> {
  const length = declaredLength(c);
  if (length !== undefined) return within(length, maxBytes) ? c.req.raw.text() : undefined;
  const body = c.req.raw.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The `Content-Length`, unless a `Transfer-Encoding` (which overrides it) came too. */
function declaredLength(c: Context): string | undefined {
  const length = c.req.header('content-length');
  return length === undefined || c.req.header('transfer-encoding') !== undefined
    ? undefined
    : length;
}

function within(length: string, maxBytes: number): boolean {
  return /^\d+$/.test(length) && Number(length) <= maxBytes;
}
