import { isPromise, type MaybePromise } from '../maybe-promise.js';

/**
 * One step of a pipeline. `run` returns `true` to hand the subject on to the next stage;
 * anything else ends the pipeline there (the stage has settled the subject itself). A
 * stage answers synchronously when it can: the pipeline turns asynchronous only at a stage
 * that returns a promise, so a delivery whose stages are all synchronous costs no promise.
 */
export interface Stage<S> {
  readonly name: string;
  readonly run: (subject: S) => MaybePromise<boolean | void>;
}

/** Runs `stages` on `subject` from `from` on. */
export function runStages<S>(stages: readonly Stage<S>[], subject: S, from = 0): MaybePromise<void> {
  for (let i = from; i < stages.length; i++) {
    const outcome = stages[i]!.run(subject);
    if (outcome === true) continue;
    if (outcome !== undefined && outcome !== false && isPromise(outcome)) return outcome.then((goOn) => (goOn === true ? runStages(stages, subject, i + 1) : undefined));
    return undefined;
  }
  return undefined;
}

/** Time spent in each stage's own `run` (its synchronous part), for `npm run bench:stages`. */
export interface StageTimes {
  readonly totals: Map<string, { ns: bigint; runs: number }>;
}

/** The same stages, each timed into `times` as `<list>:<name>` (a node built for the stage budget, never in production). */
export function timedStages<S, R>(list: string, stages: readonly { readonly name: string; readonly run: (subject: S) => R }[], times: StageTimes): { name: string; run: (subject: S) => R }[] {
  return stages.map((stage) => ({
    name: stage.name,
    run: (subject: S): R => {
      const started = process.hrtime.bigint();
      try {
        return stage.run(subject);
      } finally {
        const key = `${list}:${stage.name}`;
        const entry = times.totals.get(key) ?? { ns: 0n, runs: 0 };
        entry.ns += process.hrtime.bigint() - started;
        entry.runs++;
        times.totals.set(key, entry);
      }
    },
  }));
}
