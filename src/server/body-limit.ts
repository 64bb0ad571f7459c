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
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined)
      return counted(c, next);
    if (!/^\d+$/.test(length) || Number(length) > maxBytes) return tooLarge(c);
    await next();
  };
}
