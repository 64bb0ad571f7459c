// A scripted model server in its own process, so that a benchmark measures only the client side.
// Answers a question with one calculator call, and a tool result with the final answer. Started by
// agent.bench.ts with fork(); reports its URL over IPC and exits when its parent disconnects.
import { startScriptedOpenAIServer } from '../dist/testing/index.js';

const server = await startScriptedOpenAIServer({
  handler: (request) => {
    const messages = request.body?.messages ?? [];
    const last = messages[messages.length - 1];
    if (last?.role === 'tool')
      return { content: 'The answer is 51.', usage: { promptTokens: 40, completionTokens: 6 } };
    return {
      toolCalls: [
        { id: 'call_1', name: 'calculator', arguments: { expression: '340 * 15 / 100' } },
      ],
      usage: { promptTokens: 30, completionTokens: 12 },
    };
  },
});
process.send?.({ url: server.url });
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
