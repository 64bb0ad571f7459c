import type { Context } from 'hono';
/** The `type` of an OpenAI error body. */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'server_error';

/** Options of an `ApiError`. */
export interface ApiErrorOptions {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly code: string;
  readonly message: string;
  /** The request field that was wrong (`messages[2].content`), when one was. */
  readonly param?: string | undefined;
  /** Headers to answer with (`Retry-After`). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** An error the API answers with: HTTP status plus the OpenAI error body `{error: {message, type, param, code}}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly code: string;
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(options: ApiErrorOptions) {
    super(options.message);
    this.name = 'ApiError';
    this.status = options.status;
    this.type = options.type;
    this.code = options.code;
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  /** The OpenAI-shaped JSON body of this error. */
  body(): OpenAIErrorBody {
    return {
      error: { message: this.message, type: this.type, param: this.param ?? null, code: this.code },
    };
  }
}

/** The JSON body of an OpenAI error answer. */
export interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string;
  };
}

/** A 400 `invalid_request_error` naming the field that was wrong and what is accepted. */
export function invalidRequest(param: string, message: string): ApiError {
  return new ApiError({
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_request_error',
    param,
    message,
  });
}

/** The HTTP answer of an `ApiError`: its status, its headers and the OpenAI-shaped body. */
export function errorResponse(c: Context, error: ApiError): Response {
  return c.json(error.body(), error.status as 400, error.headers);
}
