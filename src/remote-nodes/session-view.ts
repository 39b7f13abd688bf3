/** What one poll of `GET /api/v1/agent/sessions/{id}` says, read defensively from the JSON. */
export interface SessionView {
  readonly working: boolean;
  readonly status: string | undefined;
  readonly hasPendingPrompt: boolean;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>;
  readonly pendingPrompt?: { readonly promptId: string; readonly type: string; readonly question: string };
  readonly error?: { readonly code?: string; readonly message?: string };
  readonly responseEnvelope?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The session view in a 200 answer, or undefined when the body is not one (no
 * `sessionState.working` boolean): a proxy's page or a truncated body, which the poller
 * treats like a failed poll.
 */
export function readSessionView(body: unknown): SessionView | undefined {
  if (!isObject(body) || !isObject(body.sessionState) || typeof body.sessionState.working !== 'boolean') return undefined;
  const state = body.sessionState;
  const messages = Array.isArray(body.messages)
    ? body.messages.filter(isObject).flatMap((m) => (typeof m.role === 'string' && typeof m.content === 'string' ? [{ role: m.role, content: m.content }] : []))
    : [];
  const prompt = isObject(body.pendingPrompt) ? body.pendingPrompt : undefined;
  const promptId = str(prompt?.promptId);
  const error = isObject(body.error) ? body.error : undefined;
  const responseEnvelope = str(body.responseEnvelope);
  return {
    working: state.working as boolean,
    status: str(state.status),
    hasPendingPrompt: state.hasPendingPrompt === true && promptId !== undefined,
    messages,
    ...(prompt && promptId !== undefined ? { pendingPrompt: { promptId, type: str(prompt.type) ?? 'unknown', question: str(prompt.question) ?? '' } } : {}),
    ...(error ? { error: { ...(str(error.code) ? { code: str(error.code) } : {}), ...(str(error.message) ? { message: str(error.message) } : {}) } } : {}),
    ...(responseEnvelope !== undefined ? { responseEnvelope } : {}),
  };
}

/** The content of the last assistant message, or '' when there is none. */
export function lastAssistantMessage(view: SessionView): string {
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const message = view.messages[i]!;
    if (message.role === 'assistant') return message.content;
  }
  return '';
}
