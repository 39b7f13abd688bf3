import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/remote-nodes/http-json.js';
import { FIRST_POLL_DELAY_MS, nextPollDelay } from '../../src/remote-nodes/poll-backoff.js';
import { unknownNodeError } from '../../src/remote-nodes/remote-session-client.js';
import { lastAssistantMessage, readSessionView } from '../../src/remote-nodes/session-view.js';

describe('remote session parts', () => {
  it('remote session - poll delays start at 500 ms, grow by 1.5 and stop at 5 s', () => {
    const delays = [FIRST_POLL_DELAY_MS];
    while (delays.length < 9) delays.push(nextPollDelay(delays.at(-1)!));
    expect(delays).toEqual([500, 750, 1125, 1687.5, 2531.25, 3796.875, 5000, 5000, 5000]);
  });

  it('remote session - an unknown node lists the available ones', () => {
    const error = unknownNodeError('x', ['a', 'b']);
    expect(error).toMatchObject({ code: 'EAGENTRPC_REMOTE_NODE_UNKNOWN', retriable: false, details: { node: 'x', available: ['a', 'b'] } });
    expect(error.message).toBe('unknown remote node "x"; available: a, b');
    expect(unknownNodeError('x', []).message).toBe('unknown remote node "x"; no remote nodes are configured');
  });

  it('remote session - URLs in messages lose userinfo, query and fragment', () => {
    expect(redactUrl('https://user:pw@node-b.example:9464/agents?token=t#f')).toBe('https://node-b.example:9464/agents');
    expect(redactUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('not a url with secret')).toBe('(invalid URL)');
  });

  it('remote session - a session view is read defensively', () => {
    expect(readSessionView({ error: 'x' })).toBeUndefined();
    expect(readSessionView('<html>')).toBeUndefined();
    const view = readSessionView({
      sessionId: 's',
      sessionState: { working: true, hasPendingPrompt: true, status: 'running' },
      messages: [{ role: 'assistant', content: 'first' }, { role: 'user' }, 'junk', { role: 'assistant', content: 'last' }, { role: 'user', content: 'later' }],
      pendingPrompt: { promptId: 'p', question: 42 },
    });
    expect(view).toMatchObject({ working: true, hasPendingPrompt: true, pendingPrompt: { promptId: 'p', type: 'unknown', question: '' } });
    expect(lastAssistantMessage(view!)).toBe('last');
    expect(readSessionView({ sessionState: { working: true, hasPendingPrompt: true } })?.hasPendingPrompt).toBe(false);
    expect(lastAssistantMessage(readSessionView({ sessionState: { working: false } })!)).toBe('');
  });
});
