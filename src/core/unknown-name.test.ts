import { describe, expect, it } from 'vitest';
import { JarvisError } from './errors.js';
import {
  NoSuchAgentError,
  NoSuchEngineError,
  NoSuchToolError,
  unknownNameMessage,
} from './unknown-name.js';

describe('unknown-name errors', () => {
  it('NoSuchToolError carries the name and the available tools, with the usual code and message', () => {
    const error = new NoSuchToolError({
      toolName: 'calculater',
      availableTools: ['think', 'calculator'],
    });
    expect(error).toBeInstanceOf(JarvisError);
    expect(JarvisError.isInstance(error)).toBe(true);
    expect(error.name).toBe('NoSuchToolError');
    expect(error.code).toBe('unknown_tool');
    expect(error.toolName).toBe('calculater');
    expect(error.availableTools).toEqual(['think', 'calculator']);
    expect(error.message).toBe(
      "Unknown tool 'calculater'. Available: calculator, think. Did you mean 'calculator'?",
    );
  });

  it('NoSuchAgentError carries the name and the available agents', () => {
    const error = new NoSuchAgentError({ agentName: 'simpel', availableAgents: ['simple'] });
    expect(error.code).toBe('unknown_agent');
    expect(error.agentName).toBe('simpel');
    expect(error.availableAgents).toEqual(['simple']);
    expect(error.message).toBe(unknownNameMessage('agent', 'simpel', ['simple']));
  });

  it('NoSuchEngineError carries the key and the available engines, and keeps a given message', () => {
    const error = new NoSuchEngineError({
      engineKey: 'olama',
      availableEngines: ['ollama', 'vllm'],
      message: 'custom text',
    });
    expect(error.code).toBe('unknown_engine');
    expect(error.engineKey).toBe('olama');
    expect(error.availableEngines).toEqual(['ollama', 'vllm']);
    expect(error.message).toBe('custom text');
  });

  it('keeps its own copy of the available names', () => {
    const names = ['a'];
    const error = new NoSuchToolError({ toolName: 'b', availableTools: names });
    names.push('c');
    expect(error.availableTools).toEqual(['a']);
  });

  it('unknownNameMessage says none when nothing is available and shows the name terminal-safe', () => {
    expect(unknownNameMessage('tool', 'x\u001b[2J', [])).toBe(
      "Unknown tool 'x^[[2J'. Available: none",
    );
  });
});
