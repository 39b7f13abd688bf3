import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../src/files/index.js';

const root = mkdtempSync(join(tmpdir(), 'atomic-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => mkdtempSync(join(root, `case-${n++}-`));

describe('atomic file', () => {
  it('atomic file - replaces the content whole and leaves no temporary file', async () => {
    const dir = freshDir();
    const path = join(dir, 'state.json');
    await writeFileAtomically(path, '{"v":1}');
    await writeFileAtomically(path, new TextEncoder().encode('{"v":2}'));
    expect(readFileSync(path, 'utf8')).toBe('{"v":2}');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('atomic file - durable: false replaces the file the same way, without syncing', async () => {
    const dir = freshDir();
    const path = join(dir, 'head');
    await writeFileAtomically(path, 'one', { durable: false });
    await writeFileAtomically(path, 'two', { durable: false });
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(readdirSync(dir)).toEqual(['head']);
  });

  it('atomic file - a new file gets the mode asked for', async () => {
    const path = join(freshDir(), 'secrets.json');
    await writeFileAtomically(path, '{}', { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('atomic file - a temporary file left by a crash is replaced by the next write', async () => {
    const dir = freshDir();
    const path = join(dir, 'record.json');
    writeFileSync(`${path}.tmp`, 'half a rec');
    await writeFileAtomically(path, '{"whole":true}');
    expect(readFileSync(path, 'utf8')).toBe('{"whole":true}');
    expect(readdirSync(dir)).toEqual(['record.json']);
  });

  it('atomic file - a failed rename throws, keeps what was there and removes the temporary file', async () => {
    const dir = freshDir();
    const path = join(dir, 'taken');
    mkdirSync(join(path, 'inside'), { recursive: true });
    await expect(writeFileAtomically(path, 'data')).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(statSync(path).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('atomic file - a missing directory fails with ENOENT', async () => {
    await expect(writeFileAtomically(join(freshDir(), 'no-such-dir', 'file'), 'data')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
