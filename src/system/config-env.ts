import {
  type Checker,
  describeValue,
  ollamaHostChecker,
  textChecker,
  urlChecker,
} from './config-checks.js';
import type { ConfigIssues } from './config-fields.js';
import { ENGINE_KEY_RULE, isBuiltinEngine, notBuiltinMessage } from './config-sections.js';
import type { EngineConfig } from './config-types.js';

/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Applies `OPENJARVIS_ENGINE`, `OPENJARVIS_MODEL`, `OLLAMA_HOST`, `OPENAI_BASE_URL` and `OPENAI_API_KEY` over the
 * engine settings of the file; an invalid value is recorded as an error naming the variable.
 */
export function applyEngineEnvironment(
  engine: EngineConfig,
  env: Environment,
  issues: ConfigIssues,
): EngineConfig {
  const read = <T>(variable: string, checker: Checker<T | undefined>): T | undefined => {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '') return undefined;
    const check = checker(raw);
    if (check.ok) return check.value;
    issues.environmentError(variable, `expected ${check.expected}, got ${describeValue(raw)}`);
    return undefined;
  };
  const engineKey = read('OPENJARVIS_ENGINE', textChecker(ENGINE_KEY_RULE));
  if (engineKey !== undefined && !isBuiltinEngine(engineKey)) {
    issues.environmentWarning('OPENJARVIS_ENGINE', notBuiltinMessage(engineKey));
  }
  const ollama = read('OLLAMA_HOST', ollamaHostChecker);
  const openai = read('OPENAI_BASE_URL', urlChecker);
  return {
    ...engine,
    default: engineKey ?? engine.default,
    model: read('OPENJARVIS_MODEL', textChecker()) ?? engine.model,
    hosts: {
      ...engine.hosts,
      ...(ollama === undefined ? {} : { ollama }),
      ...(openai === undefined ? {} : { openai }),
    },
    apiKey: read('OPENAI_API_KEY', textChecker()) ?? engine.apiKey,
  };
}
