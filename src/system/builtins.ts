import { type Registry, ToolRegistry, type ToolRegistryEntry } from '../core/index.js';
import { CalculatorTool, ThinkTool } from '../tools/index.js';

/** The built-in tools by registry key. */
export const BUILTIN_TOOLS: ReadonlyArray<readonly [string, ToolRegistryEntry]> = [
  ['calculator', CalculatorTool],
  ['think', ThinkTool],
];

/**
 * Registers the built-in tools in the given registry (the global `ToolRegistry` by default). Idempotent: keys
 * already present (built-ins registered earlier, or a user's own tool under that key) are left as they are.
 */
export function registerBuiltins(tools: Registry<ToolRegistryEntry> = ToolRegistry): void {
  for (const [key, entry] of BUILTIN_TOOLS) {
    if (!tools.contains(key)) tools.registerValue(key, entry);
  }
}
