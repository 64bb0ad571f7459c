import { describe, expect, it } from 'vitest';
import { isTerminalSafe, safeForTerminal } from './terminal-text.js';

describe('safeForTerminal', () => {
  it('shows escape sequences instead of letting them act', () => {
    const link = '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007';
    const out = safeForTerminal(`${link} \u001b[2K\u001b[1A`);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
    expect(out).toContain('^[]8;;https://evil.example');
    expect(out).toContain('^[[2K');
  });

  it('keeps newlines and tabs, shows carriage returns, C1 controls and bidi overrides', () => {
    const out = safeForTerminal('a\tb\nc\rd\u009b2J\u202eevil\r\n');
    expect(out).toBe('a\tb\nc\\u{d}d\\u{9b}2J\\u{202e}evil\n');
  });

  it('puts everything on one line when asked', () => {
    expect(safeForTerminal('a\nb\tc', { singleLine: true })).toBe('a\\nb\\tc');
  });

  it('leaves ordinary text, including non-Latin scripts and emoji, as it is', () => {
    const text = 'Grüße, 你好, مرحبا 👋';
    expect(safeForTerminal(text)).toBe(text);
    expect(isTerminalSafe(text)).toBe(true);
    expect(isTerminalSafe('x\u001b[0m')).toBe(false);
  });
});
