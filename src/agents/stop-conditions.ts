/** What a stop condition reads before the next turn of a run. */
export interface LoopProgress {
  /** Turns completed so far (engine calls that answered, or messages sent to a runtime). */
  readonly turns: number;
}

/** A check made before each turn of a loop: true ends the run there, out of turns. */
export type StopCondition = (progress: LoopProgress) => boolean;

/** Stops once `count` turns are done (`maxTurns`); a count of 0 stops before the first turn. */
export function stepCountIs(count: number): StopCondition {
  return ({ turns }) => turns >= count;
}

/** True when any of the conditions holds. */
export function isStopConditionMet(
  conditions: readonly StopCondition[],
  progress: LoopProgress,
): boolean {
  // A plain loop (no closure per check): this runs before every turn.
  for (let index = 0; index < conditions.length; index += 1) {
    const condition = conditions[index];
    if (condition?.(progress)) return true;
  }
  return false;
}
