import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as NodeLlamaCpp from 'node-llama-cpp';

/** The node-llama-cpp module. */
export type NodeLlamaCppModule = typeof NodeLlamaCpp;

/** Imports node-llama-cpp the normal way (beside openjarvis); injectable for tests. */
export type ImportNodeLlamaCpp = () => Promise<NodeLlamaCppModule>;

const locations = new Set<string>();
let loaded: Promise<NodeLlamaCppModule> | undefined;

/**
 * Adds a folder that `jarvis engines install embedded` installs node-llama-cpp into (`<home>/runtime`, an npm
 * prefix); `loadNodeLlamaCpp` looks there when node-llama-cpp is not installed beside openjarvis.
 */
export function addNodeLlamaCppLocation(prefix: string): void {
  locations.add(prefix);
}

/** The folders added with `addNodeLlamaCppLocation`, in order. */
export function nodeLlamaCppLocations(): readonly string[] {
  return [...locations];
}

/**
 * Loads node-llama-cpp: as installed beside openjarvis (a user's own install wins), else from the first runtime
 * folder that has it. Rejects with the first import's error when neither has it; a success is cached.
 */
export function loadNodeLlamaCpp(
  importBare: ImportNodeLlamaCpp = () => import('node-llama-cpp'),
): Promise<NodeLlamaCppModule> {
  if (loaded !== undefined) return loaded;
  const attempt = importFromAnywhere(importBare);
  loaded = attempt;
  attempt.catch(() => {
    if (loaded === attempt) loaded = undefined;
  });
  return attempt;
}

/** Forgets a loaded module (tests only: the next load looks again). */
export function resetNodeLlamaCppLoader(): void {
  loaded = undefined;
  locations.clear();
}

async function importFromAnywhere(importBare: ImportNodeLlamaCpp): Promise<NodeLlamaCppModule> {
  try {
    return await importBare();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    for (const prefix of locations) {
      const entry = resolveIn(prefix);
      if (entry !== undefined)
        return (await import(pathToFileURL(entry).href)) as NodeLlamaCppModule;
    }
    throw error;
  }
}

/**
 * Finds node-llama-cpp as `loadNodeLlamaCpp` would, without loading it: `undefined` when it is beside openjarvis
 * or in a runtime folder, else the resolution error of the normal lookup.
 */
export function findNodeLlamaCpp(): unknown {
  try {
    createRequire(import.meta.url).resolve('node-llama-cpp');
    return undefined;
  } catch (error) {
    return [...locations].some((prefix) => resolveIn(prefix) !== undefined) ? undefined : error;
  }
}

/**
 * node-llama-cpp as installed in the npm prefix `prefix` (not beside openjarvis), or undefined when it is not
 * there; an install that is there but broken rejects.
 */
export async function importNodeLlamaCppFrom(
  prefix: string,
): Promise<NodeLlamaCppModule | undefined> {
  const entry = resolveIn(prefix);
  if (entry === undefined) return undefined;
  return (await import(pathToFileURL(entry).href)) as NodeLlamaCppModule;
}

/** The entry file of node-llama-cpp installed under `prefix`, if it is there. */
function resolveIn(prefix: string): string | undefined {
  try {
    return createRequire(join(prefix, 'package.json')).resolve('node-llama-cpp');
  } catch {
    return undefined;
  }
}

/** Whether an import failed because the package is not installed (not because it is broken). */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
