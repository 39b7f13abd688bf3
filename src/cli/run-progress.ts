import { addUsage, NO_USAGE, type Usage } from '../flow-usage.js';
import type { StepRecord, WorkflowRunRecord, WorkflowEvent } from '../workflows/index.js';

const BAR_WIDTH = 20;

export interface RunProgressOutput {
  /** Writes a whole line. */
  readonly line: (text: string) => void;
  /**
   * On a terminal: writes text as it is, so the bar can be redrawn in place. Absent when
   * stdout is a file or a pipe: then every line is printed once, with no cursor movement.
   */
  readonly raw?: (text: string) => void;
}

/** `agent-rpc run`'s live view: a line per step as it starts and as it ends, and a bar for the whole run. */
export class RunProgress {
  readonly #out: RunProgressOutput;
  readonly #total: number;
  readonly #started = Date.now();
  #finished = 0;
  #usage: Usage = NO_USAGE;
  #barShown = false;

  constructor(out: RunProgressOutput, steps: number) {
    this.#out = out;
    this.#total = steps;
  }

  /** A progress response of the run: a step started or finished. */
  event(event: WorkflowEvent): void {
    if (event.type === 'step-started') this.#print(`  ▸ ${event.step.name} (${event.step.type}) started`);
    if (event.type !== 'step-finished') return;
    this.#finished++;
    if (event.step.usage) this.#usage = addUsage(this.#usage, event.step.usage);
    this.#print(stepLine(event.step));
  }

  /** The run's last lines: how it ended, and where its record is. */
  done(record: WorkflowRunRecord, recordPath: string | undefined): void {
    this.clearBar();
    const succeeded = record.steps.filter((step) => step.status === 'succeeded').length;
    this.#out.line(`run ${record.status}: ${succeeded}/${record.steps.length} steps succeeded in ${seconds(record.durationMs)}, ${tokens(record.usage)}, ${cost(record.usage)}`);
    if (record.error) this.#out.line(`  ${record.error.message}`);
    if (recordPath !== undefined) this.#out.line(`record: ${recordPath}`);
  }

  #print(text: string): void {
    this.clearBar();
    this.#out.line(text);
    const bar = this.#bar();
    if (this.#out.raw) {
      this.#out.raw(bar);
      this.#barShown = true;
    } else if (text.startsWith('  ▸') === false) {
      // Without a terminal the bar is a line of its own, printed when a step ends.
      this.#out.line(bar);
    }
  }

  /** Clears the bar on a terminal, so a line of another stream (a question) starts at its beginning; the next step event draws it again. */
  clearBar(): void {
    if (!this.#barShown || !this.#out.raw) return;
    this.#out.raw('\r\u001b[2K');
    this.#barShown = false;
  }

  #bar(): string {
    const filled = this.#total === 0 ? BAR_WIDTH : Math.round((this.#finished / this.#total) * BAR_WIDTH);
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${this.#finished}/${this.#total} steps, ${seconds(Date.now() - this.#started)}, ${tokens(this.#usage)}, ${cost(this.#usage)}`;
  }
}

function stepLine(step: StepRecord): string {
  const mark = step.status === 'succeeded' ? '✓' : step.status === 'failed' ? '✗' : '-';
  const parts = [`  ${mark} ${step.name} ${step.status}`];
  if (step.durationMs !== undefined) parts.push(seconds(step.durationMs));
  if (step.usage) parts.push(tokens(step.usage), cost(step.usage));
  if (step.error) parts.push(`${step.error.code}: ${step.error.message}`);
  if (step.reason) parts.push(`(${step.reason})`);
  return parts.join('  ');
}

const seconds = (ms: number): string => `${(ms / 1_000).toFixed(1)}s`;
const tokens = (usage: Usage): string => `${usage.inputTokens + usage.outputTokens} tokens`;
const cost = (usage: Usage): string => `$${usage.costUsd.toFixed(6)}`;
