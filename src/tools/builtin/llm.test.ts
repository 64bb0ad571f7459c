import { describe, expect, it } from 'vitest';
import { EngineError, type InferenceEngine } from '../../core/index.js';
import { assistantReply, errorReply, ScriptedEngine } from '../../testing/index.js';
import { ToolExecutor } from '../executor.js';
import { LLMTool } from './llm.js';

describe('LLMTool', () => {
  it('sends the system and user messages and returns the answer with usage', async () => {
    const engine = new ScriptedEngine([
      assistantReply('Short summary.', { usage: { promptTokens: 12, completionTokens: 3 } }),
    ]);
    const tool = new LLMTool({ engine, model: 'qwen3:8b', temperature: 0.2, maxTokens: 64 });
    const result = await tool.execute({ prompt: 'Summarize: AI…', system: 'Be concise.' });
    expect(result).toMatchObject({
      success: true,
      toolName: 'llm',
      content: 'Short summary.',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      costUsd: 0,
      metadata: { engine: 'scripted', model: 'qwen3:8b', finish_reason: 'stop' },
    });
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'system', content: 'Be concise.' },
      { role: 'user', content: 'Summarize: AI…' },
    ]);
    expect(engine.calls[0]?.options).toMatchObject({
      model: 'qwen3:8b',
      temperature: 0.2,
      maxTokens: 64,
    });
    engine.assertAllStepsConsumed();
  });

  it('sends only the user message without a system message and passes no sampling defaults', async () => {
    const engine = new ScriptedEngine(['ok']);
    await new LLMTool({ engine, model: 'm' }).execute({ prompt: 'hi', system: '' });
    expect(engine.calls[0]?.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(engine.calls[0]?.options).not.toHaveProperty('temperature');
    expect(engine.calls[0]?.options).not.toHaveProperty('maxTokens');
  });

  it('removes think blocks from the answer', async () => {
    const engine = new ScriptedEngine([
      '<think>The user wants a number.</think>\n\n42',
      'Let me see…</think>The answer is 7.',
    ]);
    const tool = new LLMTool({ engine, model: 'm' });
    expect((await tool.execute({ prompt: 'q' })).content).toBe('42');
    expect((await tool.execute({ prompt: 'q' })).content).toBe('The answer is 7.');
  });

  it('computes the cost from the pricing option', async () => {
    const engine = new ScriptedEngine([
      assistantReply('x', { usage: { promptTokens: 1000, completionTokens: 500 } }),
    ]);
    const tool = new LLMTool({
      engine,
      model: 'm',
      pricing: { promptPerMillionUsd: 2, completionPerMillionUsd: 10 },
    });
    const result = await tool.execute({ prompt: 'q' });
    expect(result.costUsd).toBeCloseTo(0.002 + 0.005, 12);
  });

  it('fails clearly without an engine, a model or a prompt', async () => {
    expect(await new LLMTool().execute({ prompt: 'q' })).toMatchObject({
      success: false,
      content: 'No inference engine configured.',
    });
    const engine = new ScriptedEngine();
    expect(await new LLMTool({ engine }).execute({ prompt: 'q' })).toMatchObject({
      success: false,
      content: 'No model configured.',
    });
    const tool = new LLMTool({ engine, model: 'm' });
    for (const prompt of [undefined, null, '']) {
      expect(await tool.execute({ prompt })).toMatchObject({
        success: false,
        errorCode: 'invalid_arguments',
        content: 'No prompt provided.',
      });
    }
    expect((await tool.execute({ prompt: 5 })).content).toBe(
      'prompt must be a string, got number.',
    );
    expect((await tool.execute({ prompt: 'q', system: {} })).content).toBe(
      'system must be a string, got object.',
    );
    engine.assertAllStepsConsumed();
  });

  it('turns engine errors into failed results naming the engine', async () => {
    const engine = new ScriptedEngine(
      [errorReply('engine_unavailable'), errorReply(new Error('boom'))],
      { engineId: 'ollama' },
    );
    const tool = new LLMTool({ engine, model: 'm' });
    const first = await tool.execute({ prompt: 'q' });
    expect(first).toMatchObject({ success: false, errorCode: 'tool_error' });
    expect(first.content).toMatch(
      /^LLM error \(engine 'ollama'\): ollama engine at in-process failed/,
    );
    expect((await tool.execute({ prompt: 'q' })).content).toBe("LLM error (engine 'ollama'): boom");
  });

  it('does not throw when a hand-written engine throws synchronously', async () => {
    const engine = {
      engineId: 'broken',
      generate() {
        throw new EngineError({
          code: 'engine_http_error',
          engineId: 'broken',
          address: 'http://127.0.0.1:1',
          detail: 'HTTP 500',
          status: 500,
        });
      },
    } as unknown as InferenceEngine;
    const result = await new LLMTool({ engine, model: 'm' }).execute({ prompt: 'q' });
    expect(result).toMatchObject({ success: false });
    expect(result.content).toContain('HTTP 500');
  });

  it('hands the run signal to the engine and reports cancellation', async () => {
    const controller = new AbortController();
    const engine = new ScriptedEngine([
      () => {
        controller.abort();
        return 'late';
      },
    ]);
    const tool = new LLMTool({ engine, model: 'm' });
    const result = await tool.execute({ prompt: 'q' }, { signal: controller.signal });
    expect(engine.calls[0]?.options.signal).toBe(controller.signal);
    expect(result).toMatchObject({ success: false, errorCode: 'cancelled' });
  });

  it('runs through the executor with the spec of upstream', async () => {
    const engine = new ScriptedEngine(['done']);
    const tool = new LLMTool({ engine, model: 'm' });
    expect(tool.spec).toMatchObject({ name: 'llm', category: 'inference', timeoutMs: 120_000 });
    const executor = new ToolExecutor([tool]);
    const result = await executor.execute({ name: 'llm', arguments: '{"prompt": "go"}' });
    expect(result).toMatchObject({ success: true, content: 'done' });
    expect(engine.calls[0]?.options.signal).toBeInstanceOf(AbortSignal);
  });

  it('refuses bad options at construction', () => {
    expect(() => new LLMTool({ temperature: -1 })).toThrow(/temperature/);
    expect(() => new LLMTool({ maxTokens: 0 })).toThrow(/maxTokens/);
    expect(
      () => new LLMTool({ pricing: { promptPerMillionUsd: -1, completionPerMillionUsd: 1 } }),
    ).toThrow(/pricing.promptPerMillionUsd/);
  });
});
