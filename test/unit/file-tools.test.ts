import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgentMemory, patchTool, readSchemaTool, readTool, thinkTool, type AgentSchemaView, type ToolContext } from '../../src/model-agents/index.js';
import { silentLogger } from '../../src/logger.js';
import type { Role } from '../../src/auth/roles.js';
import { RecordedAudit } from '../support/recorded-audit.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function contextIn(workDir: string, role: Role = 'operator'): ToolContext & { audit: RecordedAudit } {
  return { principal: { user: 'alice', role }, agentId: 'assistant', audit: new RecordedAudit(), logger: silentLogger, workDir };
}

/** A working directory with files, and a directory beside it that no tool may reach. */
async function workspace(files: Record<string, string> = {}): Promise<{ work: string; outside: string; context: ToolContext & { audit: RecordedAudit } }> {
  const root = await tempDir('file-tools-');
  const work = join(root, 'work');
  const outside = join(root, 'outside');
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(work, name, '..'), { recursive: true });
    await writeFile(join(work, name), content);
  }
  return { work, outside, context: contextIn(work) };
}

const lines = (count: number, prefix = 'line'): string => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join('');

describe('read tool', () => {
  it('read - returns numbered lines like cat -n', async () => {
    const { context } = await workspace({ 'a.txt': 'alpha\nbeta\n' });
    expect(await readTool().execute({ path: 'a.txt' }, context)).toEqual({ output: '     1\talpha\n     2\tbeta' });
  });

  it('read - offset and limit select lines and say where to continue', async () => {
    const { context } = await workspace({ 'a.txt': lines(10) });
    const result = await readTool().execute({ path: 'a.txt', offset: 3, limit: 2 }, context);
    expect(result.output).toBe('     3\tline 3\n     4\tline 4\n[showing lines 3-4 of 10; continue with offset=5]');
    expect(result.isError).toBeUndefined();
    expect((await readTool().execute({ path: 'a.txt', offset: 11 }, context)).output).toBe('a.txt has 10 lines; offset 11 is past the end.');
  });

  it('read - reads 2000 lines by default and cuts long lines and long outputs', async () => {
    const { context } = await workspace({ 'many.txt': lines(2500), 'wide.txt': `${'x'.repeat(2500)}\nshort\n`, 'big.txt': lines(100, 'y'.repeat(1000)) });
    const many = (await readTool().execute({ path: 'many.txt' }, context)).output.split('\n');
    expect(many).toHaveLength(2001);
    expect(many.at(-1)).toBe('[showing lines 1-2000 of 2500; continue with offset=2001]');
    const wide = (await readTool().execute({ path: 'wide.txt' }, context)).output;
    expect(wide).toContain(`${'x'.repeat(2000)}... [line cut at 2000 of 2500 characters]\n     2\tshort`);
    const big = (await readTool().execute({ path: 'big.txt' }, context)).output;
    expect(big.length).toBeLessThanOrEqual(50_200);
    expect(big).toMatch(/\[output cut at 50000 characters: showing lines 1-(\d+) of 100; continue with offset=(\d+)\]$/);
    const [, last, next] = /lines 1-(\d+) of 100; continue with offset=(\d+)/.exec(big)!;
    expect(Number(next)).toBe(Number(last) + 1);
  });

  it('read - a directory lists its entries', async () => {
    const { context } = await workspace({ 'src/b.ts': '', 'src/a.ts': '', 'src/lib/c.ts': '' });
    expect(await readTool().execute({ path: 'src' }, context)).toEqual({ isError: true, output: 'src is a directory, not a file. Its entries:\na.ts\nb.ts\nlib/' });
  });

  it('read - binary, missing and empty files get clear answers', async () => {
    const { work, context } = await workspace({ 'empty.txt': '' });
    await writeFile(join(work, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(await readTool().execute({ path: 'image.png' }, context)).toEqual({ isError: true, output: 'Cannot read image.png: it is a binary file.' });
    expect(await readTool().execute({ path: 'nope.txt' }, context)).toEqual({ isError: true, output: 'File not found: nope.txt' });
    expect(await readTool().execute({ path: 'empty.txt' }, context)).toEqual({ output: 'empty.txt is empty.' });
  });

  it('read - a ../ escape, an absolute path outside and a symlink leading out are refused', async () => {
    const { work, outside, context } = await workspace();
    await symlink(join(outside, 'secret.txt'), join(work, 'link.txt'));
    await symlink(outside, join(work, 'linked-dir'));
    for (const path of ['../outside/secret.txt', join(outside, 'secret.txt'), 'link.txt', 'linked-dir/secret.txt', 'linked-dir']) {
      const result = await readTool().execute({ path }, context);
      expect(result).toEqual({ isError: true, output: `Access denied: ${path} is outside the working directory and the memory directories.` });
    }
  });

  it('read - a symlink that stays inside and an extra root are readable', async () => {
    const { work, context } = await workspace({ 'real.txt': 'inside\n' });
    const extra = await tempDir('file-tools-extra-');
    await writeFile(join(extra, 'note.md'), 'remember\n');
    await symlink(join(work, 'real.txt'), join(work, 'alias.txt'));
    expect((await readTool().execute({ path: 'alias.txt' }, context)).output).toBe('     1\tinside');
    expect((await readTool({ extraRoots: [extra] }).execute({ path: join(extra, 'note.md') }, context)).output).toBe('     1\tremember');
    expect((await readTool().execute({ path: join(extra, 'note.md') }, context)).isError).toBe(true);
  });

  it('read - invalid arguments are an error result', async () => {
    const { context } = await workspace();
    expect(await readTool().execute({ path: 'a.txt', offset: 0 }, context)).toMatchObject({ isError: true, output: expect.stringContaining('Invalid arguments for read: /offset') });
  });
});

describe('patch tool', () => {
  it('patch - creates a file and its parent directories', async () => {
    const { work, context } = await workspace();
    const patch = '--- /dev/null\n+++ docs/new/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n';
    expect(await patchTool().execute({ patch }, context)).toEqual({ output: 'created docs/new/a.txt' });
    expect(await readFile(join(work, 'docs/new/a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(context.audit.entries).toEqual([{ kind: 'file_patch', agentId: 'assistant', user: 'alice', files: [{ path: 'docs/new/a.txt', change: 'created' }] }]);
  });

  it('patch - edits a file and reports the line counts', async () => {
    const { work, context } = await workspace({ 'b.txt': 'a\nb\nc\nd\n' });
    const patch = '--- b.txt\n+++ b.txt\n@@ -1,4 +1,6 @@\n a\n-b\n+B\n+B2\n+B3\n c\n d\n';
    expect(await patchTool().execute({ patch }, context)).toEqual({ output: 'edited b.txt (+3 -1)' });
    expect(await readFile(join(work, 'b.txt'), 'utf8')).toBe('a\nB\nB2\nB3\nc\nd\n');
  });

  it('patch - deletes a file', async () => {
    const { work, context } = await workspace({ 'c.txt': 'x\ny\n' });
    expect(await patchTool().execute({ patch: '--- a/c.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n' }, context)).toEqual({ output: 'deleted c.txt' });
    await expect(stat(join(work, 'c.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('patch - changes several files in one patch, git a/ b/ prefixes stripped', async () => {
    const { work, context } = await workspace({ 'src/one.ts': 'export const one = 1;\n', 'old.txt': 'bye\n' });
    const patch = [
      'diff --git a/src/one.ts b/src/one.ts',
      'index 1111111..2222222 100644',
      '--- a/src/one.ts',
      '+++ b/src/one.ts',
      '@@ -1 +1 @@',
      '-export const one = 1;',
      '+export const one = 1 as const;',
      'diff --git a/two.ts b/two.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/two.ts',
      '@@ -0,0 +1 @@',
      '+export const two = 2;',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    expect(await patchTool().execute({ patch }, context)).toEqual({ output: 'edited src/one.ts (+1 -1)\ncreated two.ts\ndeleted old.txt' });
    expect(await readFile(join(work, 'src/one.ts'), 'utf8')).toBe('export const one = 1 as const;\n');
    expect(await readFile(join(work, 'two.ts'), 'utf8')).toBe('export const two = 2;\n');
    expect((await readdir(work)).sort()).toEqual(['src', 'two.ts']);
  });

  it('patch - a failing second hunk names the file and hunk and writes nothing at all', async () => {
    const { work, context } = await workspace({ 'first.txt': 'keep\n', 'second.txt': lines(20) });
    const patch = [
      '--- /dev/null',
      '+++ created.txt',
      '@@ -0,0 +1 @@',
      '+new',
      '--- first.txt',
      '+++ first.txt',
      '@@ -1 +1 @@',
      '-keep',
      '+changed',
      '--- second.txt',
      '+++ second.txt',
      '@@ -2,3 +2,3 @@',
      ' line 2',
      '-line 3',
      '+LINE 3',
      ' line 4',
      '@@ -15,3 +15,3 @@',
      ' line 15',
      '-line sixteen',
      '+LINE 16',
      ' line 17',
      '',
    ].join('\n');
    const result = await patchTool().execute({ patch }, context);
    expect(result.isError).toBe(true);
    expect(result.output).toContain('Hunk 2 of 2 (@@ -15,3 +15,3 @@) does not apply to second.txt');
    expect(result.output).toContain('Nothing was written');
    expect((await readdir(work)).sort()).toEqual(['first.txt', 'second.txt']);
    expect(await readFile(join(work, 'first.txt'), 'utf8')).toBe('keep\n');
    expect(await readFile(join(work, 'second.txt'), 'utf8')).toBe(lines(20));
    expect(context.audit.entries).toEqual([]);
  });

  it('patch - a write that fails midway is rolled back', async () => {
    const { work, context } = await workspace({ 'a.txt': 'a\n' });
    // The plan cannot know that "f" will be a file when "f/g" is written: the write fails, the earlier ones are undone.
    const patch = '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+A\n--- /dev/null\n+++ f\n@@ -0,0 +1 @@\n+x\n--- /dev/null\n+++ f/g\n@@ -0,0 +1 @@\n+y\n';
    const result = await patchTool().execute({ patch }, context);
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/^Cannot apply the patch: .*Nothing was changed\.$/) });
    expect(await readdir(work)).toEqual(['a.txt']);
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('patch - renames a file with a git rename header', async () => {
    const { work, context } = await workspace({ 'old.txt': 'a\nb\n' });
    const patch = 'diff --git a/old.txt b/sub/new.txt\nsimilarity index 50%\nrename from old.txt\nrename to sub/new.txt\n--- a/old.txt\n+++ b/sub/new.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n';
    expect(await patchTool().execute({ patch }, context)).toEqual({ output: 'renamed old.txt → sub/new.txt (+1 -1)' });
    expect(await readdir(work)).toEqual(['sub']);
    expect(await readFile(join(work, 'sub/new.txt'), 'utf8')).toBe('a\nc\n');
  });

  it('patch - paths outside the working directory are refused and nothing is written', async () => {
    const { work, outside, context } = await workspace({ 'ok.txt': 'a\n' });
    await symlink(outside, join(work, 'out'));
    const escapes = ['../outside/secret.txt', join(outside, 'secret.txt'), 'out/secret.txt'];
    for (const path of escapes) {
      const patch = `--- ok.txt\n+++ ok.txt\n@@ -1 +1 @@\n-a\n+b\n--- ${path}\n+++ ${path}\n@@ -1 +1 @@\n-top secret\n+pwned\n`;
      expect(await patchTool().execute({ patch }, context)).toEqual({ isError: true, output: `Access denied: ${path} is outside the working directory and the memory directories. Nothing was written.` });
    }
    const create = '--- /dev/null\n+++ out/new.txt\n@@ -0,0 +1 @@\n+x\n';
    expect((await patchTool().execute({ patch: create }, context)).isError).toBe(true);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(work, 'ok.txt'), 'utf8')).toBe('a\n');
  });

  it('patch - creating an existing file, editing a missing one and an unparsable patch are errors', async () => {
    const { context } = await workspace({ 'here.txt': 'x\n' });
    expect((await patchTool().execute({ patch: '--- /dev/null\n+++ here.txt\n@@ -0,0 +1 @@\n+y\n' }, context)).output).toBe('Cannot create here.txt: it already exists.');
    expect((await patchTool().execute({ patch: '--- gone.txt\n+++ gone.txt\n@@ -1 +1 @@\n-x\n+y\n' }, context)).output).toBe('Cannot edit gone.txt: file not found.');
    expect((await patchTool().execute({ patch: '--- here.txt\n+++ here.txt\n@@ -1,2 +1,2 @@\n-x\n+y\n' }, context)).output).toMatch(/^Cannot parse the patch: /);
    expect((await patchTool().execute({ patch: 'just some text' }, context)).output).toMatch(/^The patch changes no file/);
  });

  it('patch - a principal without execute permission is denied', async () => {
    const { work } = await workspace();
    const patch = '--- /dev/null\n+++ a.txt\n@@ -0,0 +1 @@\n+x\n';
    expect(await patchTool().execute({ patch }, contextIn(work, 'developer'))).toEqual({ isError: true, output: 'Permission denied: patch requires execute permission' });
  });
});

describe('think and read_schema tools', () => {
  it('think - acknowledges and changes nothing', async () => {
    const { work, context } = await workspace();
    expect(await thinkTool().execute({ thought: 'first read the config, then patch it' }, context)).toEqual({ output: 'Thought noted.' });
    expect(await readdir(work)).toEqual([]);
    expect(context.audit.entries).toEqual([]);
  });

  const view: AgentSchemaView = {
    agentId: 'reviewer',
    capabilities: [
      { name: 'review-pr', description: 'Reviews a pull request', inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] }, outputSchema: { type: 'object' } },
      { name: 'summarize', description: '' },
    ],
    config: { models: ['claude-main'], tools: ['read', 'patch', 'think'] },
  };

  it('read_schema - lists the agent, its config and every capability briefly', async () => {
    const { context } = await workspace();
    const result = await readSchemaTool(() => view).execute({}, context);
    expect(result.output).toBe(
      'Agent: reviewer\nModels: claude-main\nTools: read, patch, think\nCapabilities (2):\n- review-pr: Reviews a pull request\n- summarize\nCall read_schema with capability=<name> for its input and output schemas.',
    );
  });

  it('read_schema - shows one capability in full, and names the known ones for an unknown name', async () => {
    const { context } = await workspace();
    const full = await readSchemaTool(() => view).execute({ capability: 'review-pr' }, context);
    expect(full.output).toContain('Capability: review-pr\nDescription: Reviews a pull request\nInput schema:\n{\n  "type": "object"');
    expect(full.output).toContain('"required": [\n    "url"\n  ]');
    expect((await readSchemaTool(() => view).execute({ capability: 'summarize' }, context)).output).toContain('Input schema:\n(none: not checked)');
    expect(await readSchemaTool(() => view).execute({ capability: 'deploy' }, context)).toEqual({ isError: true, output: 'Unknown capability "deploy". Known capabilities: review-pr, summarize' });
  });
});

describe('agent memory', () => {
  it('memory - creates both directories and loads nothing when there are no files', async () => {
    const dataDir = await tempDir('memory-');
    const memory = await loadAgentMemory({ dataDir, agentId: 'reviewer' });
    expect(memory).toEqual({ text: '', dirs: [join(dataDir, 'memory', 'global'), join(dataDir, 'memory', 'agents', 'reviewer')] });
    for (const dir of memory.dirs) expect((await stat(dir)).isDirectory()).toBe(true);
  });

  it('memory - loads global then agent files, each sorted by name under its relative path', async () => {
    const dataDir = await tempDir('memory-');
    const { dirs } = await loadAgentMemory({ dataDir, agentId: 'reviewer' });
    await writeFile(join(dirs[0]!, 'b-style.md'), 'Use British spelling.\n');
    await writeFile(join(dirs[0]!, 'a-team.md'), 'The team is small.\n');
    await writeFile(join(dirs[0]!, 'ignored.txt'), 'not memory\n');
    await writeFile(join(dirs[1]!, 'prefs.md'), 'Prefers short reviews.\n');
    await mkdir(join(dataDir, 'memory', 'agents', 'other'), { recursive: true });
    await writeFile(join(dataDir, 'memory', 'agents', 'other', 'x.md'), 'not mine\n');
    const { text } = await loadAgentMemory({ dataDir, agentId: 'reviewer' });
    expect(text).toBe(
      '## memory/global/a-team.md\n\nThe team is small.\n\n## memory/global/b-style.md\n\nUse British spelling.\n\n## memory/agents/reviewer/prefs.md\n\nPrefers short reviews.\n',
    );
  });

  it('memory - the text is cut at the cap with a note', async () => {
    const dataDir = await tempDir('memory-');
    const { dirs } = await loadAgentMemory({ dataDir, agentId: 'reviewer' });
    await writeFile(join(dirs[0]!, 'a.md'), 'a'.repeat(40_000));
    await writeFile(join(dirs[0]!, 'b.md'), 'b'.repeat(40_000));
    const { text } = await loadAgentMemory({ dataDir, agentId: 'reviewer' });
    expect(text.length).toBeLessThan(64 * 1024 + 200);
    expect(text).toContain('## memory/global/b.md');
    expect(text).toMatch(/\[memory cut at 65536 characters: 1 of 2 files not loaded in full\]\n$/);
    expect((await loadAgentMemory({ dataDir, agentId: 'reviewer', maxChars: 100 })).text).toContain('[memory cut at 100 characters: 2 of 2 files');
  });

  it('memory - an agent id that is not one is a TypeError', async () => {
    const dataDir = await tempDir('memory-');
    await expect(loadAgentMemory({ dataDir, agentId: '../escape' })).rejects.toThrow(TypeError);
    await expect(loadAgentMemory({ dataDir, agentId: '..' })).rejects.toThrow(/agentId/);
  });

  it('memory - patch edits a memory file and the next load sees the change', async () => {
    const { work, context } = await workspace();
    const dataDir = await tempDir('memory-');
    const memory = await loadAgentMemory({ dataDir, agentId: 'assistant' });
    const notes = join(memory.dirs[1]!, 'notes.md');
    await writeFile(notes, '- build with npm run build\n');
    const tools = { read: readTool({ extraRoots: memory.dirs }), patch: patchTool({ extraRoots: memory.dirs }) };
    expect((await tools.read.execute({ path: notes }, context)).output).toBe('     1\t- build with npm run build');
    const patch = `--- ${notes}\n+++ ${notes}\n@@ -1 +1,2 @@\n - build with npm run build\n+- tests: npx vitest run\n`;
    expect(await tools.patch.execute({ patch }, context)).toEqual({ output: `edited ${notes} (+1 -0)` });
    const created = `--- /dev/null\n+++ ${join(memory.dirs[0]!, 'shared.md')}\n@@ -0,0 +1 @@\n+shared fact\n`;
    expect((await tools.patch.execute({ patch: created }, context)).isError).toBeUndefined();
    expect((await loadAgentMemory({ dataDir, agentId: 'assistant' })).text).toBe(
      '## memory/global/shared.md\n\nshared fact\n\n## memory/agents/assistant/notes.md\n\n- build with npm run build\n- tests: npx vitest run\n',
    );
    expect(await readdir(work)).toEqual([]);
  });
});
