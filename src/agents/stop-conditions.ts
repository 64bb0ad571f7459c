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
  return conditions.some((condition) => condition(progress));
}
