import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RPC_ERROR_CODES, RpcError, isWireError, toRpcError } from '../../src/errors.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** Rows of the codes table: `| \`CODE\` | yes/no | ...`. */
function documentedCodes(): Map<string, boolean> {
  const rows = new Map<string, boolean>();
  for (const match of doc.matchAll(/^\| `(EAGENTRPC_[A-Z_]+)` \| (yes|no) \|/gm)) rows.set(match[1]!, match[2] === 'yes');
  return rows;
}

describe('errors - table and documentation', () => {
  it('errors - docs/errors.md documents exactly the codes of the table, with the same retriable flag', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(RPC_ERROR_CODES).sort());
    for (const [code, entry] of Object.entries(RPC_ERROR_CODES)) expect(documented.get(code), code).toBe(entry.retriable);
  });

  it('errors - the codes the core depends on exist', () => {
    for (const code of ['EAGENTRPC_TIMEOUT', 'EAGENTRPC_ABANDONED', 'EAGENTRPC_BUSY', 'EAGENTRPC_NO_PEER', 'EAGENTRPC_NO_TRANSPORT']) {
      expect(Object.hasOwn(RPC_ERROR_CODES, code)).toBe(true);
    }
  });
});

describe('errors - RpcError', () => {
  it('errors - retriable defaults from the table and can be overridden', () => {
    expect(new RpcError('EAGENTRPC_TIMEOUT', 't').retriable).toBe(true);
    expect(new RpcError('EAGENTRPC_NO_PEER', 'p').retriable).toBe(false);
    expect(new RpcError('APP_CODE', 'a').retriable).toBe(false);
    expect(new RpcError('APP_CODE', 'a', { retriable: true }).retriable).toBe(true);
  });

  it('errors - the wire form is data only and round-trips to an equal error', () => {
    const cause = new Error('secret internals');
    const error = new RpcError('EAGENTRPC_BUSY', 'full', { details: { capacity: 3 }, cause });
    const wire = error.toWire();
    expect(wire).toEqual({ code: 'EAGENTRPC_BUSY', message: 'full', retriable: true, details: { capacity: 3 } });
    expect(JSON.stringify(wire)).not.toContain('secret');
    expect(isWireError(JSON.parse(JSON.stringify(wire)))).toBe(true);
    const back = RpcError.fromWire(wire);
    expect(back).toBeInstanceOf(RpcError);
    expect(back.toWire()).toEqual(wire);
  });

  it('errors - toRpcError keeps codes of code-carrying errors and wraps everything else', () => {
    const coded = Object.assign(new Error('nope'), { code: 'APP_NOPE' });
    expect(toRpcError(coded).code).toBe('APP_NOPE');
    expect(toRpcError(new Error('plain')).code).toBe('EAGENTRPC_HANDLER_FAILED');
    expect(toRpcError('a string')).toMatchObject({ code: 'EAGENTRPC_HANDLER_FAILED', message: 'a string' });
    const original = new RpcError('X', 'x');
    expect(toRpcError(original)).toBe(original);
  });

  it('errors - isWireError rejects malformed shapes', () => {
    expect(isWireError({ code: 'X', message: 'm' })).toBe(false);
    expect(isWireError({ code: 1, message: 'm', retriable: false })).toBe(false);
    expect(isWireError({ code: 'X', message: 'm', retriable: false, details: [] })).toBe(false);
    expect(isWireError(null)).toBe(false);
  });
});
