import { randomUUID } from 'node:crypto';
import { newMessageId, peekEnvelope, type PeekedEnvelope } from '../envelope/index.js';
import { toRpcError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InboundPort, InboundReply } from '../rpc/index.js';
import type { Principal } from '../auth/index.js';
import { messageRequestBody } from './session-envelope.js';
import type { SessionRecord } from './session-record.js';
import type { JsonFileStore } from '../http-server/index.js';
import { PromptDesk } from './prompt-desk.js';
import type { SessionFlow } from '../remote-nodes/index.js';
import { replyText } from './reply-text.js';

/** An agent of this node that sessions can run on. */
export interface SessionAgent {
  readonly port: InboundPort;
  /** The capability a message session calls (payload `{message}`). */
  readonly defaultCapability?: string;
}

export interface SessionManagerOptions {
  readonly store: JsonFileStore<SessionRecord>;
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
  /** The caller's flow, continued by a message session (remote_agent). */
  readonly flow?: SessionFlow;
}

/**
 * Runs remote sessions: each one is one request through an agent's inbox (auth, guard,
 * audit, metrics as for broker traffic), its answer kept with the session. Sessions are
 * persisted at every change and reloaded at start; one that was running when the node
 * stopped is reloaded as failed. It exists before the agents (its `prompts` answer their
 * approval prompts), which are attached once built.
 */
export class SessionManager {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly byRequest = new Map<string, SessionRecord>();
  private readonly agents: SessionAgent[] = [];
  readonly prompts: PromptDesk;

  constructor(private readonly options: SessionManagerOptions) {
    this.prompts = new PromptDesk((request) => this.byRequest.get(request.messageId), (record) => this.save(record));
  }

  /** Serves sessions on this agent from now on. */
  attach(agent: SessionAgent): void {
    this.agents.push(agent);
  }

  async load(): Promise<void> {
    const records = await this.options.store.loadAll((file, error) => this.options.logger.error({ err: error, file }, 'unreadable session file skipped'));
    for (const record of records) {
      if (record.status === 'running') {
        record.status = 'failed';
        record.error = { code: 'EAGENTRPC_ABANDONED', message: 'the node restarted while the session ran' };
        delete record.pendingPrompt;
        record.updatedAt = Date.now();
        void this.save(record);
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
      agent: target.agent.port.uri,
      requestMessageId: target.messageId,
      messages: [{ role: 'user', content: input.message, at: now }],
    };
    this.sessions.set(sessionId, record);
    this.byRequest.set(target.messageId, record);
    await this.save(record);
    this.prune(principal.user);
    void this.run(record, target.agent, target.message ?? this.messageBody(record, target.agent, input.message, input.flow));
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
    // The handler stops too: a model agent's loop and its running command end now.
    this.agents.find((agent) => agent.port.uri === record.agent)?.port.cancel(record.requestMessageId, 'the session was cancelled');
    return record;
  }

  /** Resolves when every session write started so far is on disk. */
  flush(): Promise<void> {
    return this.options.store.flush();
  }

  private targetOf(input: CreateInput): { agent: SessionAgent; messageId: string; message?: SessionMessage } | { status: 400 | 404; error: string } {
    if (input.envelope === undefined) {
      const agent = this.agents.find((a) => a.defaultCapability !== undefined);
      if (!agent) return { status: 404, error: 'not found: this node has no default capability for message sessions' };
      return { agent, messageId: newMessageId() };
    }
    const body = Buffer.from(input.envelope, 'utf8');
    // Decoded once, within the widest limits of this node's agents; the inbox reuses it.
    const peeked = peekEnvelope(body, widestLimits(this.agents));
    const envelope = peeked?.envelope;
    if (!envelope || (envelope.kind !== 'request' && envelope.kind !== 'event')) return { status: 400, error: 'bad request: envelope must be an encoded request or event envelope' };
    const agent = this.agents.find((a) => a.port.uri === envelope.to);
    if (!agent) return { status: 404, error: `not found: no agent ${envelope.to} on this node` };
    return { agent, messageId: envelope.messageId, message: { body, decoded: peeked, isEvent: envelope.kind === 'event' } };
  }

  private async messageBody(record: SessionRecord, agent: SessionAgent, message: string, flow: SessionFlow | undefined): Promise<SessionMessage> {
    const body = await messageRequestBody(agent.port, {
      messageId: record.requestMessageId,
      sessionId: record.sessionId,
      user: record.user,
      capability: agent.defaultCapability!,
      message,
      deadline: Date.now() + (this.options.timeoutMs ?? 5 * 60_000),
      ...(flow ? { flow } : {}),
    });
    return { body, isEvent: false };
  }

  private async run(record: SessionRecord, agent: SessionAgent, message: SessionMessage | Promise<SessionMessage>): Promise<void> {
    try {
      const { body, decoded, isEvent } = await message;
      await agent.port.deliver({
        body,
        ...(decoded ? { decoded } : {}),
        deliveryId: record.sessionId,
        onReply: (reply) => this.onReply(record, reply),
      });
      if (record.status !== 'running') return;
      // Settled without a final answer: an event (nothing to answer) or a message the inbox refused silently (DLQ).
      if (isEvent) this.finish(record, { status: 'completed' });
      else this.finish(record, { status: 'failed', error: { code: 'EAGENTRPC_HANDLER_FAILED', message: 'the request was not dispatched; see the node DLQ' } });
    } catch (error) {
      const failure = toRpcError(error);
      this.finish(record, { status: 'failed', error: { code: failure.code, message: failure.message } });
    }
  }

  private onReply(record: SessionRecord, reply: InboundReply): void {
    if (record.status !== 'running') return;
    const text = Buffer.from(reply.body).toString('utf8');
    const payload = reply.payload;
    if (payload?.ok && payload.progress) {
      record.messages.push({ role: 'system', content: `progress: ${replyText(payload.data)}`, at: Date.now() });
      void this.save(record);
      return;
    }
    if (payload?.ok) this.finish(record, { status: 'completed', assistant: replyText(payload.data), responseEnvelope: text });
    else {
      const error = payload ? { code: payload.error.code, message: payload.error.message } : { code: 'EAGENTRPC_INVALID_RESPONSE', message: 'the agent answered without a result' };
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
    if (this.byRequest.get(record.requestMessageId) === record) this.byRequest.delete(record.requestMessageId);
    void this.save(record);
  }

  /**
   * Never rejects: a failed write is logged and the session goes on in memory. Most callers
   * let it run (`void`); `create` awaits it so that a new session is on disk when it answers.
   */
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

/** What a session hands its agent: the bytes and, when the client sent an envelope, what it decoded to. */
interface SessionMessage {
  readonly body: Uint8Array;
  readonly decoded?: PeekedEnvelope;
  readonly isEvent: boolean;
}

function widestLimits(agents: readonly SessionAgent[]): { maxBytes?: number; maxDepth?: number } {
  if (agents.length === 0) return {};
  return {
    maxBytes: Math.max(1, ...agents.map((a) => a.port.limits.maxBytes)),
    maxDepth: Math.max(1, ...agents.map((a) => a.port.limits.maxDepth)),
  };
}
