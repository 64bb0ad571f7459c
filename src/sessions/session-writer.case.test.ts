// A process that appends turns to one session as fast as it can (bundled and run with `node`; not a test file).
// Usage: session-writer.case.test.ts <dbPath> <sessionId> <label> <count>
// Prints "ready" once open, then "wrote <seq>" after each committed turn; each turn holds a tool call and its result.
import { SqliteSessionStore } from './sqlite-session-store.js';

const [dbPath, sessionId, label, countText] = process.argv.slice(2);
if (dbPath === undefined || sessionId === undefined || label === undefined) {
  process.exitCode = 2;
  throw new Error('usage: session-writer <dbPath> <sessionId> <label> <count>');
}
const store = new SqliteSessionStore({ dbPath, busyTimeoutMs: 30_000 });
process.stdout.write('ready\n');
const count = Number(countText ?? '100');
for (let index = 0; index < count; index += 1) {
  const id = `${label}-${index}`;
  const turn = await store.appendTurn(sessionId, {
    messages: [
      { role: 'user', content: `${id} ${'x'.repeat(2_000)}` },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id, name: 'calc', arguments: '{"e":"1+1"}' }],
      },
      { role: 'tool', content: '2', toolCallId: id, name: 'calc' },
      { role: 'assistant', content: `answer ${id}` },
    ],
    agent: 'orchestrator',
    model: 'm',
    engine: 'scripted',
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    status: 'completed',
    startedMs: Date.now(),
    endedMs: Date.now(),
  });
  process.stdout.write(`wrote ${turn.seq}\n`);
}
await store.close();
