import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashPolicySchema, decideCommandLine, parseCommandLine, scrubbedEnv, type BashPolicy } from '../../src/model-agents/bash/index.js';

const readOnly = bashPolicySchema.parse({
  defaultBehavior: 'deny',
  rules: [
    { name: 'read-only', pattern: '^(cat|head|tail|grep|find|ls)\\b', action: 'allow' },
    { name: 'destructive', pattern: '^(rm|chmod|chown|mkfs)\\b', action: 'deny' },
  ],
});
const workDir = (): string => mkdtempSync(join(tmpdir(), 'bash-policy-'));
const commandsOf = async (line: string): Promise<string[]> => {
  const parsed = await parseCommandLine(line);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.commands.map((command) => command.text);
};

describe('bash policy: reading command lines', () => {
  it('parser - finds commands in lists, pipes, subshells, blocks and substitutions', async () => {
    expect(await commandsOf('cat a; rm -rf y && ls || head b & tail c | grep d')).toEqual(['cat a', 'rm -rf y', 'ls', 'head b', 'tail c', 'grep d']);
    expect(await commandsOf('(rm y); { chmod 777 z; }')).toEqual(['rm y', 'chmod 777 z']);
    expect(await commandsOf('echo "a $(b "$(c)")" `d`')).toEqual(expect.arrayContaining(['b "$(c)"', 'c', 'd']));
    expect(await commandsOf('diff <(sort a) >(tee b)')).toEqual(expect.arrayContaining(['sort a', 'tee b']));
    expect(await commandsOf('echo ${x:-$(rm y)} $((1 + $(rm z)))')).toEqual(expect.arrayContaining(['rm y', 'rm z']));
  });

  it('parser - finds commands in if, while, for, case, functions and [[ ]]', async () => {
    expect(await commandsOf('if a; then b; elif c; then d; else e; fi')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await commandsOf('while read l; do rm "$l"; done < list')).toEqual(['read l', 'rm "$l"']);
    expect(await commandsOf('for f in $(ls); do wc -l "$f"; done')).toEqual(['ls', 'wc -l "$f"']);
    expect(await commandsOf('case $x in a|b) rm a ;; (*) ls ;; esac')).toEqual(['rm a', 'ls']);
    expect(await commandsOf('f() { rm z; }; f')).toEqual(['rm z', 'f']);
    expect(await commandsOf('[[ -f $(g) ]] && h')).toEqual(['g', 'h']);
  });

  it('parser - quotes and escapes do not hide a command name', async () => {
    expect(await commandsOf(`"rm" -rf y; 'r'm x; r\\m z`)).toEqual(['rm -rf y', 'rm x', 'rm z']);
    expect(await commandsOf('FOO=1 /bin/rm x')).toEqual(['FOO=1 /bin/rm x', '/bin/rm x', 'rm x']);
  });

  it('parser - wrappers add the command they run', async () => {
    expect(await commandsOf('sudo -u root env A=1 nohup timeout 5 nice -n 3 rm q')).toContain('rm q');
    expect(await commandsOf('exec rm a; command rm b; builtin cd c; time rm d')).toEqual(expect.arrayContaining(['rm a', 'rm b', 'cd c', 'rm d']));
    expect(await commandsOf('find . -name "*.o" -exec rm {} \\;')).toContain('rm {}');
    expect(await commandsOf('ls | xargs -0 -n1 rm')).toContain('rm');
    expect(await commandsOf(`bash -c "rm -rf y; sh -c 'chmod 7 z'"`)).toEqual(expect.arrayContaining(['rm -rf y', 'chmod 7 z']));
    expect(await commandsOf('eval "rm y"')).toContain('rm y');
    expect(await commandsOf("trap 'rm -rf y' EXIT; ls")).toContain('rm -rf y');
  });

  it('parser - output redirections are writes; input and fd duplications are not', async () => {
    const parsed = await parseCommandLine('cat <<<g <in x > a 2>>b &>c >|e 2>&1 >&f; { ls; } >h');
    expect(parsed).toMatchObject({ ok: true, writes: ['a', 'b', 'c', 'e', 'f', 'h'] });
    expect(parsed).toMatchObject({ commands: [{ text: 'cat x' }, { text: 'ls' }] });
  });

  it('parser - declarations, arrays, `$[…]`, `[ ]`, here-documents and nested backticks', async () => {
    expect(await commandsOf('export A=$(rm y); declare -a arr=(a $(rm z)); a[$(rm q)]=1 ls')).toEqual(expect.arrayContaining(['rm y', 'rm z', 'rm q', 'ls']));
    expect(await commandsOf('echo $[1 + $(rm y)]')).toContain('rm y');
    expect(await commandsOf('[ -f x ] && rm y')).toEqual(['[ -f x ]', 'rm y']);
    expect(await commandsOf('echo `echo \\`rm b\\``')).toContain('rm b');
    expect(await commandsOf('cat <<EOF | rm q\n$(rm y)\nEOF')).toEqual(expect.arrayContaining(['cat', 'rm q', 'rm y']));
    expect(await commandsOf("cat <<'EOF'\n$(rm y)\nEOF")).toEqual(['cat']);
    expect(await commandsOf('cat <<EOF > out.json\n{"n": $((1 + $(rm y)))}\nEOF')).toEqual(['rm y', 'cat']);
    expect(await commandsOf('echo "a\nb" > /dev/null')).toEqual(["echo 'a\nb'"]);
  });

  it('parser - where the grammar may read a line differently from bash, it is not ok', async () => {
    const cases: Array<[string, string]> = [
      ['r\\\nm -rf y', 'line continuation'],
      ['echo ${x#$(rm y)}', 'substitution'],
      ['echo ${x:-`rm y`}', 'substitution'],
      ['cat <<EOF\n`rm y`\nEOF', 'here-document'],
      [`echo "\${x:-'$(rm y)'}"`, 'single quote'],
      [`cat <<EOF\n\${x:-'$(rm y)'}\nEOF`, 'single quote'],
      ['[ x || rm -rf y ]', '`||` inside `[ ]`'],
      ['(echo =~ x; rm y)', 'one pattern'],
      ['time { rm y; }', '`{`'],
      ['{rm y;}', '`{`'],
      ['[[ -n a ]]#$(rm y)', 'comment'],
      ['echo $((1 + $(case x in x) rm y;; esac)))', 'arithmetic'],
      ["echo x >& '$(rm y)'", 'twice'],
      ['echo x >& -rf', 'apart'],
      ['0<x rm y', 'descriptor'],
      ['rm\ry', '\\r'],
      ['cat 3<>d', 'syntax error'],
      ['grep x > out <<< y', 'syntax error'],
      ["python3 - <<'PY'\nprint(1)\nPY", 'skipped "-"'],
    ];
    for (const [line, named] of cases) {
      const parsed = await parseCommandLine(line);
      expect(parsed.ok, line).toBe(false);
      if (!parsed.ok) expect(parsed.reason, line).toContain(named);
    }
  });

  it('parser - what cannot be read is not ok, with the reason', async () => {
    const cases: Array<[string, string]> = [
      ['$CMD y', '$CMD'],
      ['"$(echo rm)" -rf /', '$(echo rm)'],
      ['cat "x', 'quote'],
      ['echo > $OUT', '$OUT'],
      ['echo rm -rf y | bash', 'input'],
      ['sh -c "$SCRIPT"', '$SCRIPT'],
      ['eval "$X"', '$X'],
      ['coproc a', 'coproc'],
      ['ls | xargs env', 'xargs'],
      ['ls | xargs -I{} sh -c {}', '{}'],
      ['env -S "rm -rf y"', 'env -S'],
      ['find . -exec {} \\;', '{}'],
      ['alias ls="rm -rf y"', 'alias'],
      ["PS4='$(rm y)' bash -xc ls", 'PS4'],
      ['echo ${x@P}', '@P'],
      ["printf -v 'a[$(rm y)]' 1", 'subscript'],
      ['for ((i = 0; i < 3; i++)); do ls; done', 'for (('],
    ];
    for (const [line, named] of cases) {
      const parsed = await parseCommandLine(line);
      expect(parsed.ok, line).toBe(false);
      if (!parsed.ok) expect(parsed.reason, line).toContain(named);
    }
  });
});

describe('bash policy: deciding', () => {
  it('policy - a read-only command is allowed', async () => {
    expect(await decideCommandLine('cat notes.txt', readOnly, workDir())).toMatchObject({ action: 'allow', decisions: [{ command: 'cat notes.txt', rule: 'read-only', action: 'allow' }] });
  });

  it('policy - every hidden or chained destructive command is denied, naming it', async () => {
    const dir = workDir();
    const cases: Array<[string, string]> = [
      ['cat notes.txt; rm -rf y', 'rm -rf y matched rule destructive (deny)'],
      ['cat $(rm -rf y)', 'rm -rf y matched rule destructive (deny)'],
      ['cat `rm -rf y`', 'rm -rf y matched rule destructive (deny)'],
      ['cat x && rm y', 'rm y matched rule destructive (deny)'],
      ['cat x | xargs rm', 'xargs rm matched no rule (default deny)'],
      ['(rm y)', 'rm y matched rule destructive (deny)'],
      ['find . -exec rm {} \\;', 'rm {} matched rule destructive (deny)'],
      ['bash -c "rm -rf y"', 'bash -c'],
      ['eval "rm y"', "eval 'rm y' matched no rule (default deny)"],
      ['cat x > /etc/passwd', '/etc/passwd is outside the working directory'],
      ['cat x > ../outside', '../outside is outside the working directory'],
      ['$CMD y', 'the command name `$CMD` is not a literal word'],
      ['cat "x', 'without closing quote'],
    ];
    for (const [line, reason] of cases) {
      const decision = await decideCommandLine(line, readOnly, dir);
      expect(decision.action, line).toBe('deny');
      expect(decision.behavior, line).toBe('hitl');
      expect(decision.reason, line).toContain(reason);
    }
  });

  it('policy - the inner command of a wrapper is checked on its own', async () => {
    const allowWrappers = bashPolicySchema.parse({ rules: [{ name: 'destructive', pattern: '^rm\\b', action: 'deny' }] });
    for (const line of ['cat x | xargs rm', 'bash -c "rm -rf y"', 'eval "rm y"', 'nohup rm y', 'find . -exec rm {} +', 'FOO=1 rm y', '/bin/rm y']) {
      expect((await decideCommandLine(line, allowWrappers, workDir())).reason, line).toMatch(/^rm\b.*matched rule destructive \(deny\)$/);
    }
  });

  it('policy - writes inside the working directory and to /dev/null are allowed', async () => {
    const dir = workDir();
    mkdirSync(join(dir, 'sub'));
    expect(await decideCommandLine('cat x > out.txt', readOnly, dir)).toMatchObject({ action: 'allow' });
    expect(await decideCommandLine('cat x > sub/new/../out.txt 2>/dev/null', readOnly, dir)).toMatchObject({ action: 'allow' });
    expect(await decideCommandLine('cat x 2>/dev/null', readOnly, dir)).toMatchObject({ action: 'allow' });
    expect(await decideCommandLine(`cat x >> ${join(dir, 'log')}`, readOnly, dir)).toMatchObject({ action: 'allow' });
  });

  it('policy - a symlink out of the working directory, or a write after cd, is denied', async () => {
    const dir = workDir();
    const outside = workDir();
    symlinkSync(outside, join(dir, 'escape'));
    symlinkSync(join(outside, 'missing'), join(dir, 'dangling'));
    expect((await decideCommandLine('cat x > escape/file', readOnly, dir)).reason).toContain('escape/file is outside');
    expect((await decideCommandLine('cat x > dangling', readOnly, dir)).reason).toContain('dangling is outside');
    const cdAllowed = bashPolicySchema.parse({ defaultBehavior: 'allow' });
    expect((await decideCommandLine('cd /tmp && cat x > out', cdAllowed, dir)).reason).toContain('after a change of directory');
  });

  it('policy - defaultBehavior allow lets unknown commands through', async () => {
    const open = bashPolicySchema.parse({ rules: [{ name: 'destructive', pattern: '^rm\\b', action: 'deny' }] });
    expect(await decideCommandLine('npm test 2>&1 | tail -n 20', open, workDir())).toMatchObject({
      action: 'allow',
      decisions: [
        { command: 'npm test', rule: undefined, action: 'allow' },
        { command: 'tail -n 20', rule: undefined, action: 'allow' },
      ],
    });
  });

  it('policy - the first matching rule wins', async () => {
    const rules = (first: 'allow' | 'deny'): BashPolicy =>
      bashPolicySchema.parse({
        rules: [
          { name: 'first', pattern: '^git push', action: first },
          { name: 'second', pattern: '^git', action: first === 'allow' ? 'deny' : 'allow' },
        ],
      });
    expect(await decideCommandLine('git push origin', rules('allow'), workDir())).toMatchObject({ action: 'allow', decisions: [{ rule: 'first' }] });
    expect(await decideCommandLine('git push origin', rules('deny'), workDir())).toMatchObject({ action: 'deny', reason: 'git push origin matched rule first (deny)' });
    expect(await decideCommandLine('git status', rules('allow'), workDir())).toMatchObject({ action: 'deny', decisions: [{ rule: 'second' }] });
  });

  it('policy - denyBehavior block is reported with the denial', async () => {
    const strict = bashPolicySchema.parse({ denyBehavior: 'block', rules: [{ name: 'destructive', pattern: '^rm\\b', action: 'deny' }] });
    expect(await decideCommandLine('rm y', strict, workDir())).toMatchObject({ action: 'deny', behavior: 'block' });
  });

  it('schema - defaults, strict keys, and an invalid regular expression are checked', () => {
    expect(bashPolicySchema.parse({})).toEqual({ defaultBehavior: 'allow', denyBehavior: 'hitl', rules: [] });
    const bad = bashPolicySchema.safeParse({ rules: [{ name: 'broken', pattern: '(unclosed', action: 'deny' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['rules', 0, 'pattern'], message: 'must be a valid JavaScript regular expression' });
    // The snake_case aliases are renamed when a file loads (aliases.ts); the schema itself knows only the fields.
    expect(bashPolicySchema.safeParse({ default_behavior: 'deny' }).success).toBe(false);
    expect(bashPolicySchema.safeParse({ rules: [{ name: 'x', pattern: 'x', action: 'maybe' }] }).success).toBe(false);
  });
});

describe('bash policy: scrubbed environment', () => {
  const env = { PATH: '/usr/bin', HOME: '/home/a', LANG: 'C.UTF-8', API_KEY: 's3cr3t', GITHUB_TOKEN: 'ghp_x', db_password: 'pw', AWS_CREDENTIALS: 'c', OTHER: 'contains-s3cr3t', NPM_TOKEN: 'n', UNSET: undefined };

  it('scrubbedEnv - drops secret names and secret values, keeps the rest', () => {
    expect(scrubbedEnv(env, { allow: [], secretValues: ['s3cr3t'] })).toEqual({ PATH: '/usr/bin', HOME: '/home/a', LANG: 'C.UTF-8' });
  });

  it('scrubbedEnv - allow keeps a named variable; empty secret values match nothing', () => {
    expect(scrubbedEnv(env, { allow: ['NPM_TOKEN', 'OTHER'], secretValues: ['', 's3cr3t'] })).toEqual({ PATH: '/usr/bin', HOME: '/home/a', LANG: 'C.UTF-8', NPM_TOKEN: 'n', OTHER: 'contains-s3cr3t' });
  });
});
