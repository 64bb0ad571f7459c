import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  preciseCos,
  preciseLog,
  preciseLog2,
  preciseLog10,
  precisePower,
  preciseSin,
  preciseTan,
} from './calculator-libm.js';

/** Distance between two finite doubles of the same sign in units in the last place. */
function ulps(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(16));
  view.setFloat64(0, a);
  view.setFloat64(8, b);
  const difference = view.getBigInt64(0) - view.getBigInt64(8);
  return Number(difference < 0n ? -difference : difference);
}

const moderate = fc.double({ min: -1e6, max: 1e6, noNaN: true });
const positive = fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true });

describe('correctly rounded elementary functions', () => {
  it('round exactly where fdlibm (Math.*) and glibc are off by one unit (checked with 80-digit decimals)', () => {
    expect(preciseSin(692)).toBe(0.7510270550472057);
    expect(preciseSin(950)).toBe(0.9454647941364737);
    expect(preciseLog(0.820891591074063)).toBe(-0.19736422322519512);
    expect(preciseLog2(0.6395073175257298)).toBe(-0.6449672277309068);
    expect(precisePower(41.77600245966091, -4.29244736581306)).toBe(1.1021905510709986e-7);
    expect(precisePower(8, 1.5)).toBe(22.627416997969522);
  });

  it('reduces huge arguments exactly, even the double closest to a multiple of pi/2', () => {
    const hardest = 6381956970095103 * 2 ** 797;
    expect(preciseCos(hardest)).toBe(-4.687165924254628e-19);
    expect(preciseSin(1e22)).toBe(-0.8522008497671888);
    expect(preciseSin(1e300)).toBe(-0.8178819121159085);
  });

  it('rounds exact midpoints of integer powers half to even (glibc does not always)', () => {
    expect(precisePower(4.5, 17)).toBe(127236798856.0987);
    expect(precisePower(10, 23)).toBe(1e23);
    expect(precisePower(0.5, 1075)).toBe(0);
    expect(precisePower(0.5, 1074)).toBe(5e-324);
    expect(precisePower(2, 1024)).toBe(Number.POSITIVE_INFINITY);
  });

  it('is exact where the true result is a double', () => {
    for (let k = -1074; k <= 1023; k += 7) expect(preciseLog2(2 ** k)).toBe(k);
    for (let k = 0; k <= 22; k += 1) expect(preciseLog10(10 ** k)).toBe(k);
    expect(preciseLog(1)).toBe(0);
    expect(precisePower(2.25, 0.5)).toBe(1.5);
    expect(precisePower(1.05, 10)).toBe(1.628894626777442);
  });

  it('follows glibc for log10, whose formula is not correctly rounded', () => {
    expect(preciseLog10(2)).toBe(0.3010299956639812);
    expect(preciseLog10(5e-324)).toBe(-323.3062153431158);
    expect(preciseLog10(1.7976931348623157e308)).toBe(308.25471555991675);
  });

  it('matches identities that correct rounding implies', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-150, max: 1e150, noNaN: true }), (x) => {
        expect(precisePower(x, 0.5)).toBe(Math.sqrt(x));
        expect(precisePower(x, 2)).toBe(x * x);
        expect(precisePower(x, -1)).toBe(1 / x);
      }),
      { numRuns: 300 },
    );
  });

  it('stays within one unit of fdlibm everywhere and keeps symmetries', () => {
    fc.assert(
      fc.property(moderate, (x) => {
        expect(ulps(preciseSin(x), Math.sin(x))).toBeLessThanOrEqual(1);
        expect(ulps(preciseCos(x), Math.cos(x))).toBeLessThanOrEqual(1);
        expect(ulps(preciseTan(x), Math.tan(x))).toBeLessThanOrEqual(1);
        expect(preciseSin(-x)).toBe(-preciseSin(x));
        expect(preciseCos(-x)).toBe(preciseCos(x));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(positive, (x) => {
        expect(ulps(preciseLog(x), Math.log(x))).toBeLessThanOrEqual(1);
        expect(ulps(preciseLog2(x), Math.log2(x))).toBeLessThanOrEqual(1);
        expect(ulps(preciseLog10(x), Math.log10(x))).toBeLessThanOrEqual(2);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        (x, y) => {
          expect(ulps(precisePower(x, y), x ** y)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives NaN for the trigonometry of infinities and NaN', () => {
    for (const f of [preciseSin, preciseCos, preciseTan]) {
      expect(f(Number.POSITIVE_INFINITY)).toBeNaN();
      expect(f(Number.NaN)).toBeNaN();
    }
    expect(preciseSin(-0)).toBe(-0);
    expect(preciseTan(2 ** -30)).toBe(2 ** -30);
    expect(preciseCos(2 ** -30)).toBe(1);
  });
});
