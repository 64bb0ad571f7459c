import { describe, expect, it } from 'vitest';
import { handledCommands } from './chat-commands.js';
import {
  CHAT_COMMANDS,
  chatHelpText,
  parseSlashCommand,
  unknownCommandMessage,
} from './chat-slash.js';

describe('parseSlashCommand', () => {
  it('reads the name and the rest of the line', () => {
    expect(parseSlashCommand('/help')).toEqual({ name: 'help', argument: '' });
    expect(parseSlashCommand('  /Tools  calculator, think ')).toEqual({
      name: 'tools',
      argument: 'calculator, think',
    });
    expect(parseSlashCommand('/export ~/notes/trip.md')).toEqual({
      name: 'export',
      argument: '~/notes/trip.md',
    });
  });

  it('leaves questions that only start with a slash alone', () => {
    expect(parseSlashCommand('/usr/bin is what?')).toBeUndefined();
    expect(parseSlashCommand('what is /help?')).toBeUndefined();
    expect(parseSlashCommand('/')).toBeUndefined();
    expect(parseSlashCommand('/ 2')).toBeUndefined();
  });

  it('names the known commands, and the closest, for an unknown one', () => {
    const message = unknownCommandMessage('sesions');
    expect(message).toContain("Unknown command '/sesions'");
    expect(message).toContain("Did you mean '/sessions'?");
    for (const name of ['/new', '/resume', '/export', '/exit']) expect(message).toContain(name);
  });

  it('has a handler for every command /help lists', () => {
    expect(handledCommands(CHAT_COMMANDS)).toHaveLength(CHAT_COMMANDS.length);
    expect(chatHelpText()).toContain('/resume <name|id>');
  });
});
