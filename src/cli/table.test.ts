import { describe, expect, it } from 'vitest';
import { firstLine, formatTable, outputWidth, truncate } from './table.js';

describe('formatTable', () => {
  it('aligns columns two spaces apart and leaves the last one unpadded', () => {
    const text = formatTable(
      [
        ['calculator', 'math', 'Evaluate'],
        ['x', '', 'Y'],
      ],
      { headers: ['NAME', 'CATEGORY', 'DESCRIPTION'] },
    );
    expect(text).toBe(
      'NAME        CATEGORY  DESCRIPTION\ncalculator  math      Evaluate\nx                     Y\n',
    );
  });

  it('cuts lines to the width with an ellipsis', () => {
    const text = formatTable([['name', 'a long description here']], { maxWidth: 15 });
    expect(text).toBe('name  a long d…\n');
    expect([...text.trimEnd()]).toHaveLength(15);
  });

  it('prints nothing for no rows and no headers', () => {
    expect(formatTable([])).toBe('');
  });
});

describe('helpers', () => {
  it('truncate keeps short text and cuts long text', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abcd', 3)).toBe('ab…');
    expect(truncate('abcd', 1)).toBe('a');
  });

  it('firstLine skips blank lines and trims', () => {
    expect(firstLine('\n  First line.  \nSecond')).toBe('First line.');
    expect(firstLine('')).toBe('');
  });

  it('outputWidth is the terminal width on a TTY only', () => {
    expect(outputWidth({ isTTY: true, columns: 100 })).toBe(100);
    expect(outputWidth({ isTTY: false, columns: 100 })).toBeUndefined();
    expect(outputWidth({ isTTY: true, columns: 0 })).toBeUndefined();
  });
});
