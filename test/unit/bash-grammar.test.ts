import { afterEach, describe, expect, it, vi } from 'vitest';

describe('bash grammar: loading', () => {
  afterEach(() => {
    vi.doUnmock('web-tree-sitter');
    vi.resetModules();
  });

  it('parser - a missing web-tree-sitter is EAGENTRPC_MISSING_PACKAGE naming both packages', async () => {
    vi.resetModules();
    vi.doMock('web-tree-sitter', () => {
      throw new Error("Cannot find package 'web-tree-sitter'");
    });
    const { parseCommandLine } = await import('../../src/model-agents/bash/command-line.js');
    const error = await parseCommandLine('ls').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EAGENTRPC_MISSING_PACKAGE' });
    expect((error as Error).message).toContain('npm install web-tree-sitter tree-sitter-bash');
  });

  it('parser - the grammar loads once and parses lines side by side', async () => {
    const { parseCommandLine } = await import('../../src/model-agents/bash/command-line.js');
    const lines = Array.from({ length: 20 }, (_, i) => `echo ${i} && rm f${i}`);
    const parsed = await Promise.all(lines.map((line) => parseCommandLine(line)));
    expect(parsed.map((p) => (p.ok ? p.commands.map((c) => c.text) : p.reason))).toEqual(lines.map((_, i) => [`echo ${i}`, `rm f${i}`]));
  });
});
