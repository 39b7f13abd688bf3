import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/remote-nodes/http-json.js';
import { pollDelay } from '../../src/remote-nodes/poll-backoff.js';
import { unknownNodeError } from '../../src/remote-nodes/remote-session-client.js';
import { lastAssistantMessage, readSessionView } from '../../src/remote-nodes/session-view.js';

describe('remote session parts', () => {
  it('remote session - poll delays start at 500 ms, grow by 1.5 and stop at 5 s, with up to 20% jitter taken off', () => {
    const polls = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    expect(polls.map((poll) => pollDelay(poll, () => 0))).toEqual([500, 750, 1125, 1688, 2531, 3797, 5000, 5000, 5000]);
    expect(polls.map((poll) => pollDelay(poll, () => 1))).toEqual([400, 600, 900, 1350, 2025, 3038, 4000, 4000, 4000]);
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
