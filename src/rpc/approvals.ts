import type { AgentRpcEnvelope } from '../envelope/index.js';

/** A question a handler asks the user before an action (command approval, a choice). */
export interface ApprovalPrompt {
  /** What kind of question, e.g. `command`, `confirm`, `input`. */
  readonly type: string;
  readonly question: string;
}

export interface ApprovalAnswer {
  readonly approved: boolean;
  /** The user (or the client acting for it) declined to answer. */
  readonly cancelled: boolean;
  readonly answer?: string;
  /** Why the answer came without a user: `safe-mode-off`, `no-session`, `session-ended`. */
  readonly reason?: string;
}

/**
 * Decides approval prompts of running handlers. The session API implements it: in safe
 * mode the prompt waits in the session until the user (or the calling node) answers;
 * with safe mode off it is approved at once.
 */
export interface ApprovalGate {
  request(request: AgentRpcEnvelope, prompt: ApprovalPrompt): Promise<ApprovalAnswer>;
}

/** Outside a session nobody can answer: every prompt is declined. */
export const noApprovals: ApprovalGate = {
  request: async () => ({ approved: false, cancelled: true, reason: 'no-session' }),
};
