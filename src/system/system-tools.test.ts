import { describe, expect, it } from 'vitest';
import { JarvisError, NoSuchToolError, Registry, type ToolRegistryEntry } from '../core/index.js';
import { CodeInterpreterTool } from '../tools/index.js';
import { registerBuiltinTools } from './builtins.js';
import { configFromToml } from './config/index.js';
import { createRegisteredTool, unknownToolError } from './system-tools.js';

describe('unknown tool names', () => {
  it('keeps the message start and code, and suggests the closest name', () => {
    const error = unknownToolError('calculater', ['think', 'calculator', 'web_search']);
    expect(error.code).toBe('unknown_tool');
    expect(error.message).toBe(
      "Unknown tool 'calculater'. Available: calculator, think, web_search. Did you mean 'calculator'?",
    );
  });

  it('carries the name and the available tools as fields', () => {
    const error = unknownToolError('calculater', ['think', 'calculator']);
    expect(error).toBeInstanceOf(NoSuchToolError);
    expect(error.toolName).toBe('calculater');
    expect(error.availableTools).toEqual(['think', 'calculator']);
  });

  it('suggests nothing when no name is close', () => {
    expect(unknownToolError('spreadsheet', ['think']).message).toBe(
      "Unknown tool 'spreadsheet'. Available: think",
    );
  });

  it('createRegisteredTool refuses a misspelled built-in with a suggestion', () => {
    const tools = new Registry<ToolRegistryEntry>('tools');
    registerBuiltinTools(tools);
    const { config } = configFromToml('', '/w/c.toml', { home: '/h', cwd: '/w', homeDir: '/h' });
    let error: unknown;
    try {
      createRegisteredTool('web_serch', tools, {
        config,
        env: {},
        codeInterpreter: () => new CodeInterpreterTool(),
      });
    } catch (caught) {
      error = caught;
    }
    expect(JarvisError.isInstance(error) && error.code).toBe('unknown_tool');
    expect((error as Error).message).toMatch(
      /^Unknown tool 'web_serch'\. Available: .*\. Did you mean 'web_search'\?$/,
    );
  });
});
