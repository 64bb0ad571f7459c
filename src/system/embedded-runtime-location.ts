import { join } from 'node:path';
import { addNodeLlamaCppLocation } from '../engine/index.js';

/**
 * Lets the embedded engine, model pulls and doctor find node-llama-cpp where `jarvis engines install embedded` puts
 * it (`<home>/runtime`), when it is not installed beside openjarvis.
 */
export function useEmbeddedRuntimeIn(home: string): void {
  addNodeLlamaCppLocation(join(home, 'runtime'));
}
