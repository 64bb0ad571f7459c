import { JarvisError, type JarvisErrorCode } from '../../core/index.js';

/** Why a model pull failed. */
export type ModelPullFailure =
  | 'unknown_model'
  | 'invalid_source'
  | 'download_failed'
  | 'unreachable'
  | 'stalled'
  | 'access_denied'
  | 'runtime_missing'
  | 'checksum_mismatch'
  | 'size_mismatch'
  | 'disk_full'
  | 'cancelled';

const CODES: Readonly<Record<ModelPullFailure, JarvisErrorCode>> = {
  unknown_model: 'model_not_found',
  invalid_source: 'invalid_argument',
  download_failed: 'model_pull_failed',
  unreachable: 'model_pull_failed',
  stalled: 'model_pull_failed',
  access_denied: 'model_access_denied',
  runtime_missing: 'engine_not_found',
  checksum_mismatch: 'model_checksum_mismatch',
  size_mismatch: 'model_checksum_mismatch',
  disk_full: 'model_disk_full',
  cancelled: 'model_pull_cancelled',
};

/** A model pull that failed; `failure` says why (`code` is its `JarvisError` code). */
export class ModelPullError extends JarvisError {
  /** Why the pull failed. */
  readonly failure: ModelPullFailure;

  constructor(failure: ModelPullFailure, message: string, cause?: unknown) {
    super({ code: CODES[failure], message, cause });
    this.failure = failure;
  }
}
