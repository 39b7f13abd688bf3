import { createInterface, type Interface } from 'node:readline';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import { noApprovals, type ApprovalAnswer, type ApprovalGate, type ApprovalPrompt } from '../rpc/index.js';

/**
 * Who answers the run's questions: the operator at the terminal (`ask`), the command line
 * (`approve`, `deny`), or nobody (`none`: not on a terminal and no flag).
 */
export type RunApprovalMode = 'ask' | 'approve' | 'deny' | 'none';

export interface RunApproverIo {
  /** A line of its own on stderr: what was decided without the operator. */
  readonly line: (text: string) => void;
  /** `ask` only: the terminal the operator answers at. */
  readonly terminal?: {
    readonly input: NodeJS.ReadableStream;
    /** Writes text as it is (the prompt waits on its line). */
    readonly write: (text: string) => void;
    /** Makes room for a question (the progress bar is cleared). */
    readonly beforeQuestion?: () => void;
  };
}

const NO_APPROVER = 'no-approver: not on a terminal; --approve or --deny answers';

/**
 * The approval gate of `agent-rpc run`: every question asked in the run's request — by a
 * model step's bash, by a handler, or by a peer a call step called, relayed up the chain —
 * comes here and is answered at once or by the operator, never left to the request's
 * deadline. Questions of other requests (peers calling this agent) go up their own chain.
 */
export class RunApprover implements ApprovalGate {
  readonly #requestId: string;
  readonly #mode: RunApprovalMode;
  readonly #io: RunApproverIo;
  /** The terminal's questions, one at a time. */
  #queue: Promise<unknown> = Promise.resolve();
  #lines: LineReader | undefined;
  #closed = false;
  #unanswered = 0;

  constructor(requestId: string, mode: RunApprovalMode, io: RunApproverIo) {
    if (mode === 'ask' && io.terminal === undefined) throw new TypeError('mode ask needs io.terminal');
    this.#requestId = requestId;
    this.#mode = mode;
    this.#io = io;
  }

  /** Questions declined because nobody could answer them: the run then exits 1. */
  get unanswered(): number {
    return this.#unanswered;
  }

  request(request: AgentRpcEnvelope, prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    if (request.messageId !== this.#requestId) return noApprovals.request(request, prompt);
    const question = `(${prompt.type}) ${printable(prompt.question, ' ')}`;
    switch (this.#mode) {
      case 'approve':
        this.#io.line(`agent-rpc run: approved (--approve): ${question}`);
        return Promise.resolve({ approved: true, cancelled: false, reason: 'approve-flag' });
      case 'deny':
        this.#io.line(`agent-rpc run: declined (--deny): ${question}`);
        return Promise.resolve({ approved: false, cancelled: false, reason: 'deny-flag' });
      case 'none':
        this.#unanswered++;
        this.#io.line(`agent-rpc run: declined (${NO_APPROVER}): ${question}`);
        return Promise.resolve({ approved: false, cancelled: true, reason: 'no-approver' });
      case 'ask': {
        const asked = this.#queue.then(() => this.#ask(prompt));
        this.#queue = asked.catch(() => undefined);
        return asked;
      }
    }
  }

  /** The run is over: a question still waiting is declined and the terminal is let go. */
  close(): void {
    this.#closed = true;
    this.#lines?.close();
  }

  async #ask(prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    if (this.#closed) return { approved: false, cancelled: true, reason: 'run-ended' };
    const terminal = this.#io.terminal!;
    terminal.beforeQuestion?.();
    terminal.write(`\napproval needed (${prompt.type}): ${printable(prompt.question, '\n  ')}\napprove? [y/N] `);
    this.#lines ??= new LineReader(terminal.input);
    for (;;) {
      const line = await this.#lines.next();
      if (line === undefined) {
        terminal.write('\n');
        return { approved: false, cancelled: true, reason: this.#closed ? 'run-ended' : 'no-answer' };
      }
      const word = line.trim().toLowerCase();
      if (word === 'y' || word === 'yes') return { approved: true, cancelled: false };
      if (word === '' || word === 'n' || word === 'no') return { approved: false, cancelled: false };
      terminal.write('approve? answer y or n [y/N] ');
    }
  }
}

/** The terminal's lines, read as they are typed; undefined once it is closed (end of input, or the run ended). */
class LineReader {
  readonly #readline: Interface;
  readonly #lines: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    // Not in terminal mode: the terminal keeps its own line editing, and Ctrl-C stays a SIGINT (which cancels the run).
    this.#readline = createInterface({ input, terminal: false });
    this.#readline.on('line', (line) => {
      if (this.#waiting) this.#take(line);
      else this.#lines.push(line);
    });
    this.#readline.on('close', () => {
      this.#ended = true;
      this.#take(undefined);
    });
  }

  next(): Promise<string | undefined> {
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift());
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  close(): void {
    this.#readline.close();
  }

  #take(line: string | undefined): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.(line);
  }
}

/**
 * A question as the terminal may show it: it quotes what a model wrote, so control
 * characters (escape sequences that would move the cursor or retitle the window) are shown
 * as `\xNN`; a line break becomes `newline`.
 */
function printable(text: string, newline: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === '\n' ? newline : c === '\t' ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}
