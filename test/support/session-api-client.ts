import { until } from './fleet.js';

export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
}

/** Plain HTTP calls to a node's /api/v1, as any client would make them. */
export class SessionApiClient {
  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, token: string | undefined, body?: unknown): Promise<ApiAnswer> {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined };
  }

  create(token: string, body: Record<string, unknown>): Promise<ApiAnswer> {
    return this.call('POST', '/api/v1/agent/sessions', token, body);
  }

  get(token: string, sessionId: string): Promise<ApiAnswer> {
    return this.call('GET', `/api/v1/agent/sessions/${sessionId}`, token);
  }

  /** Polls until the session is no longer working (or shows a pending prompt, when asked). */
  async waitFor(token: string, sessionId: string, until_: 'done' | 'prompt' = 'done'): Promise<any> {
    let last: any;
    await until(async () => {
      last = (await this.get(token, sessionId)).body;
      return until_ === 'done' ? last?.sessionState?.working === false : last?.sessionState?.hasPendingPrompt === true;
    }, 20_000);
    return last;
  }
}
