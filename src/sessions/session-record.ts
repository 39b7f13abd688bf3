export const SESSION_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface SessionMessage {
  readonly role: 'user' | 'assistant' | 'system';
  readonly content: string;
  /** ms since epoch */
  readonly at: number;
}

export interface PendingPrompt {
  readonly promptId: string;
  readonly type: string;
  readonly question: string;
}

/** One remote session as it is stored (one JSON file each). */
export interface SessionRecord {
  readonly sessionId: string;
  /** The API user who created it; only that user sees it. */
  readonly user: string;
  readonly createdAt: number;
  updatedAt: number;
  status: SessionStatus;
  readonly safeMode: boolean;
  /** `agent://<id>` of the agent of this node that runs it. */
  readonly agent: string;
  /** The request envelope's messageId: its response completes the session. */
  readonly requestMessageId: string;
  messages: SessionMessage[];
  pendingPrompt?: PendingPrompt;
  error?: { code: string; message: string };
  /** The final response envelope, exactly as the agent signed it. */
  responseEnvelope?: string;
}

/** What `GET /api/v1/agent/sessions/:id` answers. */
export function sessionView(record: SessionRecord): Record<string, unknown> {
  return {
    sessionId: record.sessionId,
    sessionState: { working: record.status === 'running', hasPendingPrompt: record.pendingPrompt !== undefined, status: record.status },
    messages: record.messages.map(({ role, content }) => ({ role, content })),
    ...(record.pendingPrompt ? { pendingPrompt: record.pendingPrompt } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.responseEnvelope !== undefined ? { responseEnvelope: record.responseEnvelope } : {}),
  };
}
