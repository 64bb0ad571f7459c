import { JarvisError, type JarvisErrorCode } from '../../core/index.js';

/** Why a model pull failed. */
export type ModelPullFailure =
  | 'unknown_model'
  | 'invalid_source'
  | 'download_failed'
  | 'checksum_mismatch'
  | 'size_mismatch'
  | 'disk_full'
  | 'cancelled';

const CODES: Readonly<Record<ModelPullFailure, JarvisErrorCode>> = {
  unknown_model: 'model_not_found',
  invalid_source: 'invalid_argument',
  download_failed: 'engine_model_error',
  checksum_mismatch: 'engine_model_error',
  size_mismatch: 'engine_model_error',
  disk_full: 'engine_model_error',
  cancelled: 'engine_cancelled',
};

/** A model pull that failed; `failure` says why (the `code` is the nearest existing `JarvisError` code). */
export class ModelPullError extends JarvisError {
  /** Why the pull failed. */
  readonly failure: ModelPullFailure;

  constructor(failure: ModelPullFailure, message: string, cause?: unknown) {
    super({ code: CODES[failure], message, cause });
    this.failure = failure;
  }
}
