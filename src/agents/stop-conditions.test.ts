import { describe, expect, it } from 'vitest';
import { isStopConditionMet, stepCountIs } from './stop-conditions.js';

describe('stop conditions', () => {
  it('stepCountIs holds once the count of turns is done', () => {
    expect(stepCountIs(2)({ turns: 1 })).toBe(false);
    expect(stepCountIs(2)({ turns: 2 })).toBe(true);
    expect(stepCountIs(0)({ turns: 0 })).toBe(true);
  });

  it('isStopConditionMet holds when any condition does', () => {
    const never = () => false;
    expect(isStopConditionMet([], { turns: 5 })).toBe(false);
    expect(isStopConditionMet([never, stepCountIs(3)], { turns: 2 })).toBe(false);
    expect(isStopConditionMet([never, stepCountIs(3)], { turns: 3 })).toBe(true);
  });
});
