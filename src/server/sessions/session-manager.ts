import { randomUUID } from 'node:crypto';
import { newMessageId } from '../../envelope/index.js';
import { toRpcError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import type { NodeCore } from '../../rpc/node-core.js';
import type { HttpIngress } from '../../../transports/http/http-ingress.js';
import { peekEnvelope } from '../../../transports/http/peek-envelope.js';
import type { Principal } from '../roles.js';
import { messageRequestBody } from './session-envelope.js';
import type { SessionRecord } from './session-record.js';
import type { SessionFileStore } from './session-store.js';
import { PromptDesk } from './prompt-desk.js';
import { replyText } from './reply-text.js';

/** An agent of this node that sessions can run on. */
export interface SessionAgent {
  readonly core: NodeCore;
  /** The capability a message session calls (payload `{message}`). */
  readonly defaultCapability?: string;
}

export interface SessionManagerOptions {
  readonly agents: readonly SessionAgent[];
  readonly ingress: HttpIngress;
  readonly store: SessionFileStore;
  readonly logger: Logger;
  /** Sessions kept per user; the oldest finished ones go first. Default 100. */
  readonly maxPerUser?: number;
  /** Deadline of a message session's request. Default 5 minutes. */
  readonly timeoutMs?: number;
}

export type CreateOutcome =
  | { readonly ok: true; readonly sessionId: string; readonly status: 'accepted' | 'already_exists' }
  | { readonly ok: false; readonly status: 400 | 404 | 429; readonly error: string };

export interface CreateInput {
  readonly sessionId?: string;
  readonly message: string;
  readonly safeMode: boolean;
  readonly envelope?: string;
}

/**
 * Runs remote sessions: each one is one request through an agent's inbox (auth, guard,
 * audit, metrics as for broker traffic), its answer kept with the session. Sessions are
 * persisted at every change and reloaded at start; one that was running when the node
 * stopped is reloaded as failed.
 */
export class SessionManager {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly byRequest = new Map<string, SessionRecord>();
  private readonly stopListening = new Map<string, () => void>();
  readonly prompts: PromptDesk;

  constructor(private readonly options: SessionManagerOptions) {
    if (options.agents.length === 0) throw new TypeError('SessionManager: at least one agent is required');
    this.prompts = new PromptDesk((request) => this.byRequest.get(request.messageId), (record) => this.save(record));
  }

  async load(): Promise<void> {
    const records = await this.options.store.loadAll((file, error) => this.options.logger.error({ err: error, file }, 'unreadable session file skipped'));
    for (const record of records) {
      if (record.status === 'running') {
        record.status = 'failed';
        record.error = { code: 'EAGENTRPC_ABANDONED', message: 'the node restarted while the session ran' };
        delete record.pendingPrompt;
        record.updatedAt = Date.now();
        this.save(record);
      }
      this.sessions.set(record.sessionId, record);
    }
  }

  /** Synchronous up to the first await: two concurrent creates with one id make one session. */
  async create(principal: Principal, input: CreateInput): Promise<CreateOutcome> {
    const sessionId = input.sessionId ?? randomUUID();
    const existing = this.sessions.get(sessionId);
    if (existing) {
      // Another user's id gets the same answer as any malformed request: nothing is revealed.
      return existing.user === principal.user ? { ok: true, sessionId, status: 'already_exists' } : { ok: false, status: 400, error: 'bad request' };
    }
    const target = this.targetOf(input);
    if ('error' in target) return { ok: false, status: target.status, error: target.error };
    // Retention never removes running sessions, so they are capped on their own.
    const maxPerUser = this.options.maxPerUser ?? 100;
    const running = [...this.sessions.values()].filter((s) => s.user === principal.user && s.status === 'running').length;
    if (running >= maxPerUser) return { ok: false, status: 429, error: `too many requests: ${running} sessions of this user are still running (max ${maxPerUser})` };
    const now = Date.now();
    const record: SessionRecord = {
      sessionId,
      user: principal.user,
      createdAt: now,
      updatedAt: now,
      status: 'running',
      safeMode: input.safeMode,
      agent: target.agent.core.uri,
      requestMessageId: target.messageId,
      messages: [{ role: 'user', content: input.message, at: now }],
    };
    this.sessions.set(sessionId, record);
    this.byRequest.set(target.messageId, record);
    await this.save(record);
    this.prune(principal.user);
    void this.run(record, target.agent, target.body ?? this.messageBody(record, target.agent, input.message));
    return { ok: true, sessionId, status: 'accepted' };
  }

  /** Undefined for unknown ids and for other users' sessions alike. */
  get(principal: Principal, sessionId: string): SessionRecord | undefined {
    const record = this.sessions.get(sessionId);
    return record?.user === principal.user ? record : undefined;
  }

  cancel(principal: Principal, sessionId: string): SessionRecord | undefined {
    const record = this.get(principal, sessionId);
    if (record?.status !== 'running') return record;
    this.finish(record, { status: 'cancelled', system: 'cancelled by the client' });
    return record;
  }

  /** Resolves when every session write started so far is on disk. */
  flush(): Promise<void> {
    return this.options.store.flush();
  }

  private targetOf(input: CreateInput): { agent: SessionAgent; messageId: string; body?: Uint8Array } | { status: 400 | 404; error: string } {
    if (input.envelope === undefined) {
      const agent = this.options.agents.find((a) => a.defaultCapability !== undefined);
      if (!agent) return { status: 404, error: 'not found: this node has no default capability for message sessions' };
      return { agent, messageId: newMessageId() };
    }
    const routing = peekEnvelope(input.envelope);
    if (!routing || (routing.kind !== 'request' && routing.kind !== 'event')) return { status: 400, error: 'bad request: envelope must be an encoded request or event envelope' };
    const agent = this.options.agents.find((a) => a.core.uri === routing.to);
    if (!agent) return { status: 404, error: `not found: no agent ${routing.to} on this node` };
    return { agent, messageId: routing.messageId, body: Buffer.from(input.envelope, 'utf8') };
  }

  private async messageBody(record: SessionRecord, agent: SessionAgent, message: string): Promise<Uint8Array> {
    return messageRequestBody(agent.core, {
      messageId: record.requestMessageId,
      sessionId: record.sessionId,
      user: record.user,
      capability: agent.defaultCapability!,
      message,
      deadline: Date.now() + (this.options.timeoutMs ?? 5 * 60_000),
    });
  }

  private async run(record: SessionRecord, agent: SessionAgent, body: Uint8Array | Promise<Uint8Array>): Promise<void> {
    const { ingress } = this.options;
    const listener = (reply: Uint8Array): void => this.onReply(record, reply);
    ingress.awaitReplies(record.requestMessageId, listener);
    this.stopListening.set(record.sessionId, () => ingress.release(record.requestMessageId, listener));
    try {
      const bytes = await body;
      await ingress.deliver(agent.core.topics.requests, bytes, record.sessionId);
      if (record.status !== 'running') return;
      // Settled without a final answer: an event (nothing to answer) or a message the inbox refused silently (DLQ).
      const isEvent = peekEnvelope(bytes)?.kind === 'event';
      if (isEvent) this.finish(record, { status: 'completed' });
      else this.finish(record, { status: 'failed', error: { code: 'EAGENTRPC_HANDLER_FAILED', message: 'the request was not dispatched; see the node DLQ' } });
    } catch (error) {
      const failure = toRpcError(error);
      this.finish(record, { status: 'failed', error: { code: failure.code, message: failure.message } });
    }
  }

  private onReply(record: SessionRecord, reply: Uint8Array): void {
    if (record.status !== 'running') return;
    const text = Buffer.from(reply).toString('utf8');
    // Replies come from this node's own agents, encoded by the runtime: valid JSON.
    const payload = (JSON.parse(text) as { payload?: { ok?: boolean; progress?: boolean; data?: unknown; error?: { code: string; message: string } } }).payload;
    if (payload?.progress) {
      record.messages.push({ role: 'system', content: `progress: ${replyText(payload.data)}`, at: Date.now() });
      this.save(record);
      return;
    }
    if (payload?.ok) this.finish(record, { status: 'completed', assistant: replyText(payload.data), responseEnvelope: text });
    else {
      const error = { code: payload?.error?.code ?? 'EAGENTRPC_INVALID_RESPONSE', message: payload?.error?.message ?? 'the agent answered without a result' };
      this.finish(record, { status: 'failed', error, responseEnvelope: text });
    }
  }

  private finish(record: SessionRecord, end: { status: SessionRecord['status']; assistant?: string; system?: string; error?: SessionRecord['error']; responseEnvelope?: string }): void {
    const now = Date.now();
    record.status = end.status;
    record.updatedAt = now;
    if (end.assistant !== undefined) record.messages.push({ role: 'assistant', content: end.assistant, at: now });
    if (end.system !== undefined) record.messages.push({ role: 'system', content: end.system, at: now });
    if (end.error) record.error = end.error;
    if (end.responseEnvelope !== undefined) record.responseEnvelope = end.responseEnvelope;
    this.prompts.closeFor(record);
    this.stopListening.get(record.sessionId)?.();
    this.stopListening.delete(record.sessionId);
    if (this.byRequest.get(record.requestMessageId) === record) this.byRequest.delete(record.requestMessageId);
    this.save(record);
  }

  private save(record: SessionRecord): Promise<void> {
    return this.options.store.save(record).catch((error: unknown) => {
      this.options.logger.error({ err: error, sessionId: record.sessionId }, 'could not persist session');
    });
  }

  /** Retention: at most maxPerUser sessions per user; the oldest finished ones are deleted. */
  private prune(user: string): void {
    const max = this.options.maxPerUser ?? 100;
    const own = [...this.sessions.values()].filter((s) => s.user === user);
    if (own.length <= max) return;
    const removable = own.filter((s) => s.status !== 'running').sort((a, b) => a.createdAt - b.createdAt);
    for (const record of removable.slice(0, own.length - max)) {
      this.sessions.delete(record.sessionId);
      void this.options.store.delete(record.sessionId).catch((error: unknown) => this.options.logger.error({ err: error, sessionId: record.sessionId }, 'could not delete session'));
    }
  }
}
