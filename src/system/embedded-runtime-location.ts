import { addNodeLlamaCppLocation } from '../engine/index.js';
import { embeddedRuntimeDir } from './embedded-runtime.js';

/**
 * Lets the embedded engine, model pulls and doctor find node-llama-cpp where `jarvis engines install embedded` puts
 * it (`<home>/runtime`), when it is not installed beside openjarvis.
 */
export function useEmbeddedRuntimeIn(home: string): void {
  addNodeLlamaCppLocation(embeddedRuntimeDir(home));
}
