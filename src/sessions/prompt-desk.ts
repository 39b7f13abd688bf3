import { randomUUID } from 'node:crypto';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import type { ApprovalAnswer, ApprovalGate, ApprovalPrompt } from '../rpc/index.js';
import type { SessionRecord } from './session-record.js';

export interface PromptResponse {
  readonly promptId: string;
  readonly cancelled?: boolean;
  readonly approved?: boolean;
  readonly answer?: string;
}

/**
 * The approval gate of the session API. A handler's prompt in a safe-mode session becomes
 * the session's pending prompt until the client answers (`respond`), cancels the session
 * or the session ends; without safe mode it is approved at once. One prompt is pending
 * per session at a time; a second waits for the first.
 */
export class PromptDesk implements ApprovalGate {
  private readonly waiting = new Map<string, (answer: ApprovalAnswer) => void>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly sessionOf: (request: AgentRpcEnvelope) => SessionRecord | undefined,
    private readonly save: (record: SessionRecord) => Promise<void>,
  ) {}

  request(request: AgentRpcEnvelope, prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    const record = this.sessionOf(request);
    if (!record) return Promise.resolve({ approved: false, cancelled: true, reason: 'no-session' });
    if (!record.safeMode) return Promise.resolve({ approved: true, cancelled: false, reason: 'safe-mode-off' });
    const previous = this.queues.get(record.sessionId) ?? Promise.resolve();
    const asked = previous.then(() => this.ask(record, prompt));
    // The handler hears of a failure through `asked`; the queue only orders the next prompt after this one.
    this.queues.set(record.sessionId, asked.catch(() => undefined));
    return asked;
  }

  /** Answers the session's pending prompt. False when no prompt with that id is pending. */
  respond(record: SessionRecord, response: PromptResponse): boolean {
    const pending = record.pendingPrompt;
    const resolve = this.waiting.get(record.sessionId);
    if (pending?.promptId !== response.promptId || !resolve) return false;
    const cancelled = response.cancelled === true;
    const approved = !cancelled && response.approved === true;
    const verdict = cancelled ? 'rejected' : approved ? 'approved' : 'declined';
    record.messages.push({ role: 'system', content: `${pending.type} prompt ${verdict}`, at: Date.now() });
    this.settle(record, { approved, cancelled, ...(response.answer !== undefined ? { answer: response.answer } : {}) });
    return true;
  }

  /** The session ended (finished or cancelled): a pending prompt is declined. */
  closeFor(record: SessionRecord): void {
    if (this.waiting.has(record.sessionId)) this.settle(record, { approved: false, cancelled: true, reason: 'session-ended' });
    this.queues.delete(record.sessionId);
  }

  private ask(record: SessionRecord, prompt: ApprovalPrompt): Promise<ApprovalAnswer> {
    if (record.status !== 'running') return Promise.resolve({ approved: false, cancelled: true, reason: 'session-ended' });
    return new Promise((resolve) => {
      record.pendingPrompt = { promptId: randomUUID(), type: prompt.type, question: prompt.question };
      record.updatedAt = Date.now();
      this.waiting.set(record.sessionId, resolve);
      void this.save(record);
    });
  }

  private settle(record: SessionRecord, answer: ApprovalAnswer): void {
    const resolve = this.waiting.get(record.sessionId);
    this.waiting.delete(record.sessionId);
    delete record.pendingPrompt;
    record.updatedAt = Date.now();
    void this.save(record);
    resolve?.(answer);
  }
}
