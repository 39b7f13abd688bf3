import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isUuid } from '../envelope/index.js';
import { writeFileAtomically } from '../files/index.js';
import type { Usage } from '../flow-usage.js';
import { WORKFLOW_NAME_RE } from './workflow-schema.js';

export const RUN_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const STEP_STATUSES = ['succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** An error as a record keeps it: data, never a stack trace. */
export interface StepError {
  readonly code: string;
  readonly message: string;
}

/** One step of a run, as it ended. Times are ISO 8601; a step that never started has none. */
export interface StepRecord {
  readonly name: string;
  readonly type: 'agent' | 'call';
  readonly status: StepStatus;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly durationMs?: number;
  /** What the step returned: a string, or the JSON value itself. */
  readonly output?: unknown;
  readonly usage?: Usage;
  /** Why a failed step failed. */
  readonly error?: StepError;
  /** Why a step did not run or did not finish: `dependency <name> failed`, `run cancelled`. */
  readonly reason?: string;
}

/** A workflow run: JSON, written under `<dataDir>/runs/<workflow>/<runId>.json`. */
export interface WorkflowRunRecord {
  readonly version: 1;
  readonly workflow: string;
  readonly runId: string;
  readonly status: RunStatus;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** The named params the run used: the file's, overridden by the run's own. */
  readonly params: Readonly<Record<string, string>>;
  /** The positional params (`$1`…`$9`). */
  readonly args: readonly string[];
  /** Every step, in file order. */
  readonly steps: readonly StepRecord[];
  /** The sum of the steps' usage. */
  readonly usage: Usage;
  /** For a failed run: EAGENTRPC_WORKFLOW_STEP_FAILED, naming the first step that failed. */
  readonly error?: StepError & { readonly details: { readonly step: string; readonly cause: string } };
}

/** Where a run's record is kept. Throws TypeError for a name or id that cannot be a file name. */
export function runRecordPath(dataDir: string, workflow: string, runId: string): string {
  if (!WORKFLOW_NAME_RE.test(workflow)) throw new TypeError(`runRecordPath: invalid workflow name ${JSON.stringify(workflow)}`);
  if (!isUuid(runId)) throw new TypeError(`runRecordPath: runId must be a UUID, got ${JSON.stringify(runId)}`);
  return join(dataDir, 'runs', workflow, `${runId}.json`);
}

/**
 * Writes a run record where runRecordPath says, atomically and durably (writeFileAtomically):
 * a reader or a crash never sees half a record, and a run reported finished keeps its
 * record through a power loss. Returns the file's path.
 */
export async function writeRunRecord(dataDir: string, record: WorkflowRunRecord): Promise<string> {
  const target = runRecordPath(dataDir, record.workflow, record.runId);
  await mkdir(join(dataDir, 'runs', record.workflow), { recursive: true });
  await writeFileAtomically(target, `${JSON.stringify(record, null, 2)}\n`);
  return target;
}
