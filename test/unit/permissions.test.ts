import { describe, expect, it } from 'vitest';
import { compilePermissions, requestPermissionKey } from '../../src/rpc/permissions.js';

describe('permissions - glob allow and deny', () => {
  const key = (to: string, cap: string) => requestPermissionKey(`agent://${to}`, cap);

  it('permissions - without rules everything is allowed', () => {
    expect(compilePermissions()(key('a', 'b'))).toBe(true);
  });

  it('permissions - an allow list admits only what matches it', () => {
    const check = compilePermissions({ allow: ['RequestAgent:agent://pr-reviewer/*'] });
    expect(check(key('pr-reviewer', 'review-pr'))).toBe(true);
    expect(check(key('pr-reviewer', 'nested/cap'))).toBe(true);
    expect(check(key('pr-reviewer-2', 'review-pr'))).toBe(false);
    expect(check(key('billing', 'charge'))).toBe(false);
  });

  it('permissions - deny wins over allow', () => {
    const check = compilePermissions({ allow: ['RequestAgent:*'], deny: ['RequestAgent:agent://billing/*'] });
    expect(check(key('billing', 'charge'))).toBe(false);
    expect(check(key('search', 'query'))).toBe(true);
  });

  it('permissions - ? matches one character and regex metacharacters are literal', () => {
    const check = compilePermissions({ allow: ['RequestAgent:agent://a?/x.y'] });
    expect(check(key('ab', 'x.y'))).toBe(true);
    expect(check(key('ab', 'xzy'))).toBe(false);
    expect(check(key('abc', 'x.y'))).toBe(false);
  });

  it('permissions - bad patterns throw TypeError naming the entry', () => {
    expect(() => compilePermissions({ deny: ['ok', ''] })).toThrow(/permissions\.deny\[1\]/);
  });
});
