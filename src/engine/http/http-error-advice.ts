import { EngineError, type EngineErrorCode } from '../../core/index.js';

/** What an HTTP error from a model server means for the user: a sharper code and what to do. */
export interface HttpErrorAdvice {
  readonly code: EngineErrorCode;
  readonly detail: string;
}

/** The engine error `error` becomes with `advice`: same engine, address, status and attempts; `error` as cause. */
export function withAdvice(error: EngineError, advice: HttpErrorAdvice): EngineError {
  return new EngineError({
    code: advice.code,
    engineId: error.engineId,
    address: error.address,
    detail: advice.detail,
    attempts: error.attempts,
    ...(error.status === undefined ? {} : { status: error.status }),
    cause: error,
  });
}
