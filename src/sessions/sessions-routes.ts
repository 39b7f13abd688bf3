import { z } from 'zod';
import { apiError, type ApiResponse, type ApiRoute } from '../http-server/index.js';
import type { SessionManager } from './session-manager.js';
import { sessionView } from './session-record.js';
import { sessionFlowSchema } from '../remote-nodes/index.js';

const SESSION_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const createBody = z.strictObject({
  sessionId: z.unknown().optional(),
  message: z.string().max(1_000_000).optional(),
  safeMode: z.boolean().default(true),
  /** An encoded request envelope (the http gateway); without it `message` goes to the default capability. */
  envelope: z.string().min(2).optional(),
  /** The caller's flow (a model agent's remote_agent call): the session's request continues it, so guards see the whole chain. */
  flow: sessionFlowSchema.optional(),
});

const respondBody = z.strictObject({
  promptId: z.string().min(1),
  cancelled: z.boolean().optional(),
  approved: z.boolean().optional(),
  answer: z.string().optional(),
});

function badRequest(error: z.ZodError): ApiResponse {
  const issue = error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  return apiError(400, `bad request: ${field}: ${issue.message}`);
}

/** The session API: create a session, read it, answer its prompt, cancel it. */
export function sessionRoutes(manager: SessionManager): ApiRoute[] {
  const notFound = apiError(404, 'not found');
  return [
    {
      method: 'POST',
      pattern: '/api/v1/agent/sessions',
      permission: 'execute',
      async handle({ body, principal }) {
        const parsed = createBody.safeParse(body ?? {});
        if (!parsed.success) return badRequest(parsed.error);
        const { sessionId, message, safeMode, envelope, flow } = parsed.data;
        if (sessionId !== undefined && (typeof sessionId !== 'string' || !SESSION_ID_RE.test(sessionId))) return apiError(400, 'bad request: sessionId must be a valid UUID');
        if (message === undefined && envelope === undefined) return apiError(400, 'bad request: message is required');
        const outcome = await manager.create(principal, {
          ...(sessionId !== undefined ? { sessionId: sessionId as string } : {}),
          message: message ?? '',
          safeMode,
          ...(envelope !== undefined ? { envelope } : {}),
          ...(flow !== undefined ? { flow } : {}),
        });
        if (!outcome.ok) return apiError(outcome.status, outcome.error);
        return { status: 201, body: { sessionId: outcome.sessionId, status: outcome.status } };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/agent/sessions/:id',
      permission: 'read',
      async handle({ params, principal }) {
        const record = manager.get(principal, params.id!);
        return record ? { status: 200, body: sessionView(record) } : notFound;
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/agent/sessions/:id/respond',
      permission: 'execute',
      async handle({ params, principal, body }) {
        const parsed = respondBody.safeParse(body ?? {});
        if (!parsed.success) return badRequest(parsed.error);
        const record = manager.get(principal, params.id!);
        if (!record) return notFound;
        if (!manager.prompts.respond(record, parsed.data)) return apiError(409, `conflict: no pending prompt ${parsed.data.promptId}`);
        return { status: 200, body: { sessionId: record.sessionId, promptId: parsed.data.promptId, status: 'answered' } };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v1/agent/sessions/:id/cancel',
      permission: 'execute',
      async handle({ params, principal }) {
        const record = manager.cancel(principal, params.id!);
        return record ? { status: 200, body: { sessionId: record.sessionId, status: record.status } } : notFound;
      },
    },
  ];
}
