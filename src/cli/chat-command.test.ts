import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerChatCommand } from './chat-command.js';
import type { CliIo } from './cli-io.js';
import { opensChatByDefault } from './program.js';

function io(stdinTTY: boolean, stdoutTTY: boolean): CliIo {
  const stream = { write: () => undefined, isTTY: stdoutTTY, columns: 80 };
  return {
    stdout: stream,
    stderr: stream,
    stdin: Object.assign(new PassThrough(), { isTTY: stdinTTY }),
    env: {},
    cwd: '/',
    signal: new AbortController().signal,
  };
}

describe('jarvis chat command', () => {
  it('opens by default only for a person at a terminal, and only without arguments', () => {
    expect(opensChatByDefault([], io(true, true))).toBe(true);
    expect(opensChatByDefault([], io(false, true))).toBe(false);
    expect(opensChatByDefault([], io(true, false))).toBe(false);
    expect(opensChatByDefault(['--verbose'], io(true, true))).toBe(false);
  });

  it('takes the run flags of ask', () => {
    const program = new Command('jarvis');
    registerChatCommand(program, io(false, false));
    const chat = program.commands.find((command) => command.name() === 'chat');
    const flags = chat?.options.map((option) => option.long) ?? [];
    for (const flag of [
      '--session',
      '--continue',
      '--agent',
      '--tools',
      '--engine',
      '--model',
      '--yes',
      '--no-context',
    ])
      expect(flags).toContain(flag);
  });
});
