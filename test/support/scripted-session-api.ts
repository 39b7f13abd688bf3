import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server speaking the session API's wire contract with scripted behaviour,
 * for the remote-session client's failure paths: lost responses, error statuses, resets,
 * hanging answers, prompts, remote failures. Real daemon-to-daemon behaviour is tested
 * against the daemon itself.
 */

export interface ScriptedSession {
  readonly sessionId: string;
  readonly message: string;
  readonly envelope: string | undefined;
  readonly safeMode: boolean;
  /** GETs answered with a view so far. */
  polls: number;
  readonly responses: Array<Record<string, unknown>>;
  cancelled: boolean;
}

export interface PollView {
  working: boolean;
  status?: 'running' | 'completed' | 'failed' | 'cancelled';
  messages?: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>;
  pendingPrompt?: { promptId: string; type: string; question: string };
  error?: { code: string; message: string };
  responseEnvelope?: string;
}

export interface SessionScript {
  /** The view of poll `n` (0-based) of a session. Default: finished at once, echoing the message. */
  poll?(session: ScriptedSession, n: number): PollView;
  /** When set, requests without exactly this Authorization header get 401. */
  authorization?: string;
  /** Answer every create with `already_exists`, as for a session made by an earlier lost POST. */
  alreadyExists?: boolean;
}

/** `drop-response`: act on the request, then close the socket without answering. `hang`: never answer. */
export type Fault = 'reset' | 'drop-response' | 'hang' | { status: number; error?: string };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown> | undefined;
  /** The status answered, when one was. */
  status?: number;
  reply?: unknown;
}

interface PendingFault {
  readonly method: string;
  readonly path: RegExp;
  readonly fault: Fault;
  remaining: number;
  skip: number;
}

const SESSIONS = '/api/v1/agent/sessions';

export const echoed = (session: ScriptedSession): PollView => ({
  working: false,
  status: 'completed',
  messages: [
    { role: 'user', content: session.message },
    { role: 'assistant', content: `echo: ${session.message}` },
  ],
});

export class ScriptedSessionApi {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, ScriptedSession>();
  /** Every request as `METHOD path`, in order; tests may push their own entries between. */
  readonly events: string[] = [];
  private readonly faults: PendingFault[] = [];

  private constructor(
    private readonly server: Server,
    private readonly script: SessionScript,
  ) {}

  static async start(script: SessionScript = {}): Promise<ScriptedSessionApi> {
    let api: ScriptedSessionApi | undefined;
    const server = createServer((req, res) => void api!.handle(req, res));
    api = new ScriptedSessionApi(server, script);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Matching requests fail this way `times` times, after `skip` matching ones pass. */
  inject(method: string, path: RegExp, fault: Fault, times = 1, skip = 0): void {
    this.faults.push({ method, path, fault, remaining: times, skip });
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private takeFault(method: string, path: string): Fault | undefined {
    const pending = this.faults.find((f) => f.remaining > 0 && f.method === method && f.path.test(path));
    if (!pending) return undefined;
    if (pending.skip > 0) {
      pending.skip -= 1;
      return undefined;
    }
    pending.remaining -= 1;
    return pending.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const recorded: RecordedRequest = { method, path, authorization: req.headers.authorization, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
    this.requests.push(recorded);
    this.events.push(`${method} ${path}`);
    const fault = this.takeFault(method, path);
    if (fault === 'reset') return void req.socket.destroy();
    if (fault === 'hang') return;
    const send = (status: number, body: unknown): void => {
      if (fault === 'drop-response') return void req.socket.destroy();
      recorded.status = status;
      recorded.reply = body;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (fault !== undefined && typeof fault === 'object') return send(fault.status, { error: fault.error ?? `scripted HTTP ${fault.status}` });
    if (this.script.authorization !== undefined && req.headers.authorization !== this.script.authorization) return send(401, { error: 'unauthorized: invalid token' });
    this.route(method, path, recorded.body ?? {}, send);
  }

  private route(method: string, path: string, body: Record<string, unknown>, send: (status: number, body: unknown) => void): void {
    if (method === 'POST' && path === SESSIONS) {
      const sessionId = String(body.sessionId);
      const exists = this.sessions.has(sessionId) || this.script.alreadyExists === true;
      if (!this.sessions.has(sessionId)) {
        const envelope = typeof body.envelope === 'string' ? body.envelope : undefined;
        this.sessions.set(sessionId, { sessionId, message: String(body.message), envelope, safeMode: body.safeMode === true, polls: 0, responses: [], cancelled: false });
      }
      return send(201, { sessionId, status: exists ? 'already_exists' : 'accepted' });
    }
    const match = /^\/api\/v1\/agent\/sessions\/([^/]+)(\/respond|\/cancel)?$/.exec(path);
    const session = match ? this.sessions.get(match[1]!) : undefined;
    if (!session) return send(404, { error: 'session not found' });
    if (method === 'GET' && !match![2]) {
      const view = session.cancelled ? { working: false, status: 'cancelled' as const } : (this.script.poll ?? echoed)(session, session.polls);
      session.polls += 1;
      const { working, status, pendingPrompt, ...rest } = view;
      return send(200, { sessionId: session.sessionId, sessionState: { working, hasPendingPrompt: pendingPrompt !== undefined, status: status ?? (working ? 'running' : 'completed') }, messages: [], ...(pendingPrompt ? { pendingPrompt } : {}), ...rest });
    }
    if (method === 'POST' && match![2] === '/respond') {
      session.responses.push(body);
      return send(200, { ok: true });
    }
    if (method === 'POST' && match![2] === '/cancel') {
      session.cancelled = true;
      return send(200, { ok: true });
    }
    send(404, { error: 'not found' });
  }
}
