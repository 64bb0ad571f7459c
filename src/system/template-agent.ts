import { CustomAgent } from '../agents/index.js';

/** What `jarvis agents list` says of a template agent (one that cannot be run by its registry key). */
export const TEMPLATE_AGENT_DESCRIPTION =
  'template: subclass CustomAgent in code; not runnable by name';

/** True for a registry entry that is a template to subclass (`CustomAgent` itself), not a runnable agent. */
export function isTemplateAgent(entry: unknown): boolean {
  return entry === CustomAgent;
}
