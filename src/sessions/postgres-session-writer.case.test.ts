// A process that appends turns to one session in PostgreSQL as fast as it can (bundled and run with `node`;
// not a test file). Usage: postgres-session-writer.case.test.ts <url> <sessionId> <label> <count>
// Prints "wrote <seq>" after each committed turn; each turn holds a tool call and its result.
import { openPostgres } from '../storage/index.js';
import { PostgresSessionStore } from './postgres-session-store.js';

const [url, sessionId, label, countText] = process.argv.slice(2);
if (url === undefined || sessionId === undefined || label === undefined) {
  process.exitCode = 2;
  throw new Error('usage: postgres-session-writer <url> <sessionId> <label> <count>');
}
const database = await openPostgres({ url, poolSize: 2 });
const store = await PostgresSessionStore.open({ database, closeDatabase: true });
const count = Number(countText ?? '100');
for (let index = 0; index < count; index += 1) {
  const id = `${label}-${index}`;
  const turn = await store.appendTurn(sessionId, {
    messages: [
      { role: 'user', content: `${id} ${'x'.repeat(500)}` },
      { role: 'assistant', content: '', toolCalls: [{ id, name: 'calc', arguments: '{}' }] },
      { role: 'tool', content: '2', toolCallId: id, name: 'calc' },
      { role: 'assistant', content: `answer ${id}` },
    ],
    agent: 'orchestrator',
    model: 'm',
    engine: 'scripted',
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    status: 'completed',
    startedMs: index,
    endedMs: index,
  });
  process.stdout.write(`wrote ${turn.seq}\n`);
}
await store.close();
