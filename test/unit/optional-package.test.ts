import { describe, expect, it } from 'vitest';
import { importOptional } from '../../src/optional-package.js';

describe('optional packages', () => {
  it('optional package - one that is not installed is EAGENTRPC_MISSING_PACKAGE naming the feature, the package and the install line', async () => {
    const notFound = Object.assign(new Error("Cannot find package 'left-pad'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importOptional(() => Promise.reject(notFound), 'padding', 'left-pad')).rejects.toMatchObject({
      code: 'EAGENTRPC_MISSING_PACKAGE',
      message: 'padding needs the left-pad package: run `npm install left-pad`',
      cause: notFound,
    });
    const requireNotFound = Object.assign(new Error("Cannot find module 'left-pad'"), { code: 'MODULE_NOT_FOUND' });
    await expect(importOptional(() => Promise.reject(requireNotFound), 'padding', 'left-pad')).rejects.toMatchObject({ code: 'EAGENTRPC_MISSING_PACKAGE' });
    // A loader in between (a test runner's) may wrap Node's error as its cause.
    const wrapped = new Error('the loader could not load left-pad', { cause: notFound });
    await expect(importOptional(() => Promise.reject(wrapped), 'padding', 'left-pad')).rejects.toMatchObject({ code: 'EAGENTRPC_MISSING_PACKAGE' });
  });

  it('optional package - one that is installed but fails as it loads is reported as that failure, not as missing', async () => {
    const broken = new SyntaxError('Unexpected token in left-pad/index.js');
    await expect(importOptional(() => Promise.reject(broken), 'padding', 'left-pad')).rejects.toBe(broken);
  });

  it('optional package - one that loads is returned', async () => {
    await expect(importOptional(() => Promise.resolve({ pad: 1 }), 'padding', 'left-pad')).resolves.toEqual({ pad: 1 });
  });
});
