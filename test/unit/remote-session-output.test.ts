import { describe, expect, it } from 'vitest';
import { EMPTY_OUTPUT, formatRemoteOutput, MAX_OUTPUT_CHARS, summarizePrompt } from '../../src/remote-nodes/format-remote-output.js';

const digits = (n: number): string => Array.from({ length: n }, (_, i) => String(i % 10)).join('');

describe('remote session output', () => {
  it('remote output - up to 10,000 characters are kept as they are', () => {
    expect(MAX_OUTPUT_CHARS).toBe(10_000);
    expect(formatRemoteOutput(digits(10_000), [])).toBe(digits(10_000));
  });

  it('remote output - 10,001 characters keep the first 500 and the last 9,500, naming the 1 cut', () => {
    const text = digits(10_001);
    const output = formatRemoteOutput(text, []);
    expect(output).toBe(`${text.slice(0, 500)}\n... [truncated 1 chars] ...\n${text.slice(-9_500)}`);
  });

  it('remote output - the count names every character removed', () => {
    const text = digits(25_000);
    expect(formatRemoteOutput(text, [])).toContain('\n... [truncated 15000 chars] ...\n');
  });

  it('remote output - empty output says so', () => {
    expect(formatRemoteOutput('', [])).toBe('Remote agent completed but produced no output.');
    expect(EMPTY_OUTPUT).toBe('Remote agent completed but produced no output.');
  });

  it('remote output - rejected prompts are listed after the message', () => {
    const output = formatRemoteOutput('done', [
      { type: 'command', question: 'rm -rf build?' },
      { type: 'approval', question: 'Deploy?' },
    ]);
    expect(output).toBe('done\n\n[Note: 2 prompt(s) from the remote agent were auto-rejected:\n- command: rm -rf build?\n- approval: Deploy?]');
    expect(formatRemoteOutput('', [{ type: 'command', question: 'q' }])).toBe(`${EMPTY_OUTPUT}\n\n[Note: 1 prompt(s) from the remote agent were auto-rejected:\n- command: q]`);
  });

  it('remote output - the note counts toward the 10,000 characters and survives in the tail', () => {
    const note = '\n\n[Note: 1 prompt(s) from the remote agent were auto-rejected:\n- command: q]';
    const fits = formatRemoteOutput(digits(10_000 - note.length), [{ type: 'command', question: 'q' }]);
    expect(fits).toBe(`${digits(10_000 - note.length)}${note}`);
    const over = formatRemoteOutput(digits(10_001 - note.length), [{ type: 'command', question: 'q' }]);
    expect(over).toContain('[truncated 1 chars]');
    expect(over.endsWith(note)).toBe(true);
  });

  it('remote output - a prompt keeps its type and the first 200 characters of its question', () => {
    const question = `${'x'.repeat(199)}yz`;
    expect(summarizePrompt('command', question)).toEqual({ type: 'command', question: question.slice(0, 200) });
    expect(summarizePrompt('command', 'short')).toEqual({ type: 'command', question: 'short' });
  });
});
