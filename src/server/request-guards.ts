import type { Context, MiddlewareHandler } from 'hono';
import { bearerKeyMatches } from './bearer-auth.js';
import { limitBodyBytes } from './body-limit.js';
import { ApiError, errorResponse } from './openai-error.js';

/** The `Host` names a server listening on a loopback address answers to (besides its own address). */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Only `application/json` bodies: another site's page can send a form or `text/plain` to a local server without
 * asking, but a JSON body needs the browser's CORS preflight, which this server grants to no one unless configured.
 * Throws a 415 `ApiError` otherwise.
 */
export function requireJsonBody(c: Context): void {
  const type = c.req.header('content-type') ?? '';
  if (/^application\/json\s*(?:;|$)/i.test(type)) return;
  throw new ApiError({
    status: 415,
    type: 'invalid_request_error',
    code: 'unsupported_media_type',
    message: 'Send the body as JSON with `Content-Type: application/json`',
  });
}

/**
 * The DNS-rebinding guard: a page on another site that makes its own name resolve to 127.0.0.1 reaches a local
 * server as a same-origin page, with its own name in `Host`. This gives the 403 `ApiError` (naming the address
 * to use) for a request whose `Host` name (port left aside) is not one of `allowed`, else `undefined`; without
 * `allowed` every host is accepted. The last `Host` value accepted is remembered, so the usual request (the
 * same `Host` as the one before) costs one string comparison.
 */
export function hostRefusal(
  allowed: readonly string[] | undefined,
): (c: Context) => ApiError | undefined {
  if (allowed === undefined) return () => undefined;
  const names = new Set(allowed.map((name) => hostName(name)));
  let lastAccepted: string | undefined;
  return (c) => {
    const host = c.req.header('host') ?? '';
    if (host === lastAccepted) return undefined;
    if (names.has(hostName(host))) {
      lastAccepted = host;
      return undefined;
    }
    const shown = host.replace(/[^A-Za-z0-9.:[\]-]/g, '?').slice(0, 100);
    return new ApiError({
      status: 403,
      type: 'invalid_request_error',
      code: 'host_not_allowed',
      message: `This server does not answer to the host '${shown}' (a guard against DNS rebinding): use ${[...names].join(', ')}, or start it with --host for other names`,
    });
  };
}

/** The name part of a `Host` value, lower-cased: `LOCALHOST:8000` -> `localhost`, `[::1]:80` -> `[::1]`. */
export function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']');
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.indexOf(':');
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

/**
 * With `apiKey` set, every request needs `Authorization: Bearer <apiKey>` (compared in constant time); others
 * are refused with a 401 `ApiError` (thrown, for the app's error handler).
 */
export function requireApiKey(apiKey: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    checkApiKey(c, apiKey);
    return next();
  };
}

/** The check of `requireApiKey` as a function for a handler to call: throws the 401 `ApiError`. */
export function checkApiKey(c: Context, apiKey: string | undefined): void {
  if (apiKey === undefined || bearerKeyMatches(c.req.header('authorization'), apiKey)) return;
  throw new ApiError({
    status: 401,
    type: 'authentication_error',
    code: 'invalid_api_key',
    message: 'Missing or wrong API key: send `Authorization: Bearer <key>`',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}

/** Refuses a request body over `maxBytes` with the OpenAI-shaped 413 `request_too_large`. */
export function limitRequestBody(maxBytes: number): MiddlewareHandler {
  return limitBodyBytes(maxBytes, (c) => errorResponse(c, tooLarge(maxBytes)));
}

/** The 413 `request_too_large` of a body over `maxBytes`. */
export function tooLarge(maxBytes: number): ApiError {
  return new ApiError({
    status: 413,
    type: 'invalid_request_error',
    code: 'request_too_large',
    message: `The request body is larger than ${maxBytes} bytes`,
  });
}
