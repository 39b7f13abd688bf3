import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/model-agents/bash/index.js';

/**
 * Runs `line` in bash, in an empty directory, where no command c1…c9 exists: bash calls
 * command_not_found_handle for each, which records its name. Returns the names bash ran and
 * the files the line created.
 */
function runInBash(line: string): { ran: string[]; created: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'bash-vs-'));
  const work = join(dir, 'work');
  const log = join(dir, 'ran');
  const handler = `command_not_found_handle() { printf '%s\\0' "$1" >> '${log}'; return 127; }; export -f command_not_found_handle`;
  spawnSync('mkdir', [work]);
  spawnSync('timeout', ['-s', 'KILL', '5', 'bash', '-c', `${handler}\n${line}\nwait`], { cwd: work, env: { PATH: '/usr/bin:/bin', HOME: dir }, stdio: 'ignore' });
  let ran: string[] = [];
  try {
    ran = readFileSync(log, 'utf8').split('\0').filter(Boolean);
  } catch {
    // Nothing ran.
  }
  return { ran, created: readdirSync(work) };
}

// Lines where tree-sitter-bash's tree needs care to read as bash does: each runs c1…c9.
const LINES = [
  'c1 a; c2 b && c3 || c4 & c5 | c6',
  'echo "a $(c1 "$(c2)")" `c3`',
  'echo `echo \\`c1\\``',
  'echo "`echo \\"\\`c1\\`\\"`"',
  'cat <<EOF | c1\n$(c2) $((1 + $(c3)))\nEOF',
  "cat <<'EOF' && c1\n$(c2)\nEOF",
  'cat <<EOF > out.txt\n${x:-$(c1)}\nEOF',
  'c1 > a b c 2> d',
  '> e c2 x',
  'time a=b c1 -x',
  'time -p c2 | c3',
  'v=2>f c1',
  'c1 >&-x',
  'export A=$(c1) B; declare -a arr=(a $(c2)); a[$(c3)]=1 c4',
  'echo $[1 + $(c1)] ${x:-$(c2)} ${y/a/$(c3)} ${z:$(c4):1}',
  '[ -n "$(c1)" ] && [[ $(c2) == x ]] || c3',
  'for i in $(c1); do c2 "$i"; done; case $(c3) in *) c4;; esac',
  'f() { c1; }; f; function g { c2; } > g.txt; g',
  'if c1; then c2; elif c3; then :; else c4; fi; while c5; do :; done',
  '(c1); { c2; }; ! c3; (( $(c4) ))',
  'c3 <(c1) >(c2)',
  'eval "c1 x"; bash -c "c2; sh -c \'c3\'"',
  'echo a\\ b "x\ny" c1; c3 \\\n  -f',
  'c1 a$"x" && $"c2" y',
  'x=$(cat <<EOF\n$(c1)\nEOF\n); c2 "$x"',
  'echo ~ *.txt {a,b} $$ >> h.txt; c1',
];

describe('bash policy: the parser against bash itself', () => {
  it('parser - every command bash runs and every file it creates is among what the parser lists', async () => {
    for (const line of LINES) {
      const parsed = await parseCommandLine(line);
      expect(parsed.ok, `${line}: ${parsed.ok ? '' : parsed.reason}`).toBe(true);
      if (!parsed.ok) continue;
      const { ran, created } = runInBash(line);
      expect(ran.length, line).toBeGreaterThan(0);
      const names = new Set(parsed.commands.map((command) => command.name));
      expect(ran.filter((name) => !names.has(name)), line).toEqual([]);
      expect(created.filter((file) => !parsed.writes.includes(file)), line).toEqual([]);
    }
  });
});
