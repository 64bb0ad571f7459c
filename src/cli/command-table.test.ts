import { PassThrough } from 'node:stream';
import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { COMMAND_TABLE, loadCommands, requestedCommand } from './command-table.js';
import { createProgram, runCli } from './program.js';

/** A CliIo over strings (no terminal). */
function stringIo(): CliIo & { readonly out: () => string; readonly err: () => string } {
  let out = '';
  let err = '';
  const stream = (write: (text: string) => void) => ({ write, isTTY: false, columns: 80 });
  return {
    stdout: stream((text) => {
      out += text;
    }),
    stderr: stream((text) => {
      err += text;
    }),
    stdin: Object.assign(new PassThrough(), { isTTY: false }),
    env: {},
    cwd: '/',
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}

/** The subcommand `name` of `program`; fails the test when missing. */
function commandOf(program: Command, name: string): Command {
  const command = program.commands.find((candidate) => candidate.name() === name);
  if (command === undefined) throw new Error(`no command ${name}`);
  return command;
}

describe('the command table', () => {
  it('lists each command as commander lists the fully built command', async () => {
    for (const entry of COMMAND_TABLE) {
      const program = new Command('jarvis');
      (await entry.load())(program, stringIo());
      expect(program.commands.map((command) => command.name())).toEqual([entry.name]);
      const built = commandOf(program, entry.name);
      expect(new Help().subcommandTerm(built)).toBe(entry.term);
      expect(built.description()).toBe(entry.description);
    }
  });

  it('builds the root help of light entries byte for byte as of fully built commands', async () => {
    const full = createProgram(stringIo(), await loadCommands()).helpInformation();
    expect(full).toContain('  ask [options] [query...]  Ask a question');
    for (const argv of [[], ['--help'], ['tools', 'list'], ['help', 'models'], ['tols']])
      expect(createProgram(stringIo(), await loadCommands(argv)).helpInformation()).toBe(full);
  });

  it('loads and builds only the command argv names in full', async () => {
    expect([...(await loadCommands(['--help'])).keys()]).toEqual([]);
    expect([...(await loadCommands(['help', 'models'])).keys()]).toEqual(['models']);
    expect([...(await loadCommands()).keys()]).toEqual(COMMAND_TABLE.map((entry) => entry.name));
    const argv = ['--verbose', 'tools', 'list', '--json'];
    const program = createProgram(stringIo(), await loadCommands(argv));
    expect(commandOf(program, 'tools').commands.map((command) => command.name())).toEqual(['list']);
    expect(commandOf(program, 'ask').options).toEqual([]);
    expect(commandOf(program, 'scheduler').commands).toEqual([]);
  });

  it('finds the command of a run, of `help <command>` and of none', () => {
    expect(requestedCommand(['tools', 'list'])).toBe('tools');
    expect(requestedCommand(['--verbose', 'ask', 'tools'])).toBe('ask');
    expect(requestedCommand(['help', 'models'])).toBe('models');
    expect(requestedCommand(['--', 'serve'])).toBe('serve');
    expect(requestedCommand(['help'])).toBeUndefined();
    expect(requestedCommand(['--help'])).toBeUndefined();
    expect(requestedCommand(['tols', 'tools'])).toBeUndefined();
    expect(requestedCommand([])).toBeUndefined();
  });

  it('prints a light command’s full help through `help <command>` and `<command> --help`', async () => {
    for (const argv of [
      ['help', 'sessions'],
      ['sessions', '--help'],
    ]) {
      const io = stringIo();
      expect(await runCli(argv, io)).toBe(0);
      expect(io.out()).toContain('Usage: jarvis sessions [options] [command]');
      expect(io.out()).toContain('show [options] <id|name>');
    }
  });

  it('reads stdin only when a command uses it (a getter stays a getter through the session)', async () => {
    const io = stringIo();
    let stdinReads = 0;
    const { stdin } = io;
    const lazyIo = Object.defineProperty({ ...io }, 'stdin', {
      get: () => {
        stdinReads += 1;
        return stdin;
      },
    });
    expect(await runCli(['--help'], lazyIo)).toBe(0);
    expect(await runCli(['tools', '--help'], lazyIo)).toBe(0);
    expect(stdinReads).toBe(0);
    // Without a command, whether stdin is a terminal decides between the chat and the help.
    expect(await runCli([], lazyIo)).toBe(0);
    expect(stdinReads).toBe(1);
    expect(io.out()).toContain('Usage: jarvis [options] [command]');
  });

  it('suggests the nearest command for an unknown one', async () => {
    const io = stringIo();
    expect(await runCli(['schedulr'], io)).toBe(2);
    expect(io.err()).toBe("error: unknown command 'schedulr'\n(Did you mean scheduler?)\n");
  });
});
