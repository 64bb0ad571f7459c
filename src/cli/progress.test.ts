import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/index.js';
import type { CliStream } from './cli-io.js';
import { ProgressLine } from './progress.js';

function stream(isTTY: boolean, columns = 80): CliStream & { text: string } {
  const target = {
    text: '',
    isTTY,
    columns,
    write(text: string) {
      target.text += text;
    },
  };
  return target;
}

function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  return {
    nowMs: () => now,
    monotonicMs: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('ProgressLine', () => {
  it('writes nothing when the stream is not a terminal', () => {
    const out = stream(false);
    const line = new ProgressLine(out);
    line.update('1 files', true);
    line.clear();
    expect(out.text).toBe('');
    expect(line.active).toBe(false);
  });

  it('redraws in place at most once per interval, and clears the line', () => {
    const out = stream(true);
    const clock = manualClock();
    const line = new ProgressLine(out, { clock, intervalMs: 100, barWidth: 8 });
    line.update('1 files');
    line.update('2 files');
    clock.advance(100);
    line.update('3 files');
    expect(out.text).toBe('\r\u001b[2K[ ===  ] 1 files\r\u001b[2K[  === ] 3 files');
    line.clear();
    expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('bounces the block and fits the line to the terminal', () => {
    const out = stream(true, 20);
    const line = new ProgressLine(out, { clock: manualClock(), barWidth: 8 });
    const bars: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      out.text = '';
      line.update('a very long path name that does not fit', true);
      const drawn = out.text.replace('\r\u001b[2K', '');
      expect([...drawn]).toHaveLength(19);
      bars.push(drawn.slice(0, 8));
    }
    expect(bars).toEqual(['[ ===  ]', '[  === ]', '[   ===]', '[  === ]', '[ ===  ]']);
  });

  it('takes a terminal that reports no width as 80 columns', () => {
    const out = stream(true, 0);
    new ProgressLine(out, { clock: manualClock() }).update('x'.repeat(200), true);
    expect([...out.text.replace('\r\u001b[2K', '')]).toHaveLength(79);
  });
});
