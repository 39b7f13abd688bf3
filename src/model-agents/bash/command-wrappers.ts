/** One argument of a command: its value when fixed before the line runs, and how it reads. */
export interface Arg {
  readonly value: string | undefined;
  readonly text: string;
}

/** What a command runs besides itself. */
export interface Unwrapped {
  /** Commands it runs from its own arguments (`nohup rm x` runs `rm x`). */
  readonly commands: Arg[][];
  /** Shell text it runs (`eval`, `bash -c`). */
  readonly scripts: string[];
  /** It runs something in another directory, so relative paths there mean something else. */
  readonly changesDirectory: boolean;
  /** Its commands get more arguments from its input (xargs). */
  readonly appendsInput?: boolean;
}

/** `inputAppended`: the command is run by xargs, which appends its input as more arguments. */
type Unwrapper = (args: Arg[], inputAppended: boolean) => Unwrapped | string;

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
const none = (): Unwrapped => ({ commands: [], scripts: [], changesDirectory: false });
const runs = (command: Arg[], changesDirectory = false): Unwrapped => ({ commands: command.length > 0 ? [command] : [], scripts: [], changesDirectory });

/**
 * Reads options the way getopt would for the few wrappers below. `withValue` are the
 * options that take the next argument (or an attached one); `flags` take none. Returns
 * the index of the first operand, or why the options cannot be read.
 */
function skipOptions(args: Arg[], start: number, flags: readonly string[], withValue: readonly string[], seen: string[] = []): number | string {
  let i = start;
  while (i < args.length) {
    const arg = args[i]!.value;
    if (arg === undefined) return `\`${args[i]!.text}\` is not a literal word`;
    if (arg === '--') return i + 1;
    if (!arg.startsWith('-') || arg === '-') return i;
    const long = arg.startsWith('--') ? arg.split('=')[0]! : undefined;
    if (long !== undefined) {
      if (withValue.includes(long)) i += arg.includes('=') ? 1 : 2;
      else if (flags.includes(long)) i += 1;
      else return `unknown option ${long}`;
      seen.push(long);
      continue;
    }
    // A cluster of short options: `-0rt`, or one taking a value, attached (`-n1`) or next (`-n 1`).
    let j = 1;
    for (; j < arg.length; j += 1) {
      const option = `-${arg[j]}`;
      seen.push(option);
      if (withValue.includes(option)) break;
      if (!flags.includes(option)) return `unknown option ${option}`;
    }
    i += j < arg.length ? (j === arg.length - 1 ? 2 : 1) : 1;
  }
  return i;
}

interface CommandAfter {
  readonly flags: readonly string[];
  readonly withValue: readonly string[];
  /** Options that make the command run in another directory. */
  readonly directory?: readonly string[];
  /** Operands before the command (timeout's duration). */
  readonly operands?: number;
  /** `NAME=value` words before the command set its environment (env, sudo). */
  readonly assignments?: boolean;
  /** Options that run something other than the command (sudo -s): refused. */
  readonly refused?: readonly string[];
}

/** Wraps a reader of options followed by a command. */
function commandAfter(spec: CommandAfter): Unwrapper {
  return (args, inputAppended) => {
    const seen: string[] = [];
    const first = skipOptions(args, 1, [...spec.flags, ...(spec.refused ?? [])], spec.withValue, seen);
    if (typeof first === 'string') return first;
    const refused = seen.find((option) => spec.refused?.includes(option));
    if (refused !== undefined) return `\`${args[0]!.text} ${refused}\` runs a shell or an editor`;
    let i = first + (spec.operands ?? 0);
    while (spec.assignments && i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!.value ?? '')) i += 1;
    const command = args.slice(i);
    if (command.length === 0 && inputAppended) return `xargs would take the command of \`${args[0]!.text}\` from its input`;
    return runs(command, seen.some((option) => spec.directory?.includes(option)));
  };
}

const WRAPPERS: Record<string, Unwrapper> = {
  env: (args, inputAppended) => {
    const split = args.find((arg) => /^(-[a-zA-Z]*S|--split-string)/.test(arg.value ?? ''));
    if (split !== undefined) return '`env -S` splits a string into a command';
    return commandAfter({
      flags: ['-i', '-0', '-v', '--ignore-environment', '--null', '--debug', '--default-signal', '--ignore-signal', '--block-signal', '--list-signal-handling'],
      withValue: ['-u', '-C', '--unset', '--chdir'],
      directory: ['-C', '--chdir'],
      assignments: true,
    })(args, inputAppended);
  },
  nohup: commandAfter({ flags: [], withValue: [] }),
  timeout: commandAfter({ flags: ['-v', '--verbose', '--preserve-status', '--foreground'], withValue: ['-s', '-k', '--signal', '--kill-after'], operands: 1 }),
  nice: (args, inputAppended) => {
    // `nice -10 cmd`: a bare number is the adjustment.
    const rest = /^-\d+$/.test(args[1]?.value ?? '') ? [args[0]!, ...args.slice(2)] : args;
    return commandAfter({ flags: [], withValue: ['-n', '--adjustment'] })(rest, inputAppended);
  },
  // bash's `time` keyword times a pipeline, whose command may start with assignments.
  time: commandAfter({ flags: ['-p', '-v', '-q', '--portability', '--verbose', '--quiet'], withValue: ['-f', '--format'], assignments: true }),
  builtin: commandAfter({ flags: [], withValue: [] }),
  exec: commandAfter({ flags: ['-c', '-l'], withValue: ['-a'] }),
  command: (args, inputAppended) => {
    const seen: string[] = [];
    const first = skipOptions(args, 1, ['-p', '-v', '-V'], [], seen);
    if (typeof first === 'string') return first;
    // `command -v name` only looks the name up.
    if (seen.includes('-v') || seen.includes('-V')) return none();
    return commandAfter({ flags: ['-p'], withValue: [] })(args, inputAppended);
  },
  sudo: commandAfter({
    flags: ['-A', '-b', '-E', '-H', '-k', '-n', '-P', '-S', '--preserve-env', '--non-interactive'],
    withValue: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R', '--user', '--group', '--chdir'],
    directory: ['-D', '--chdir'],
    assignments: true,
    refused: ['-i', '-s', '-e', '--login', '--shell', '--edit'],
  }),
  xargs: (args) => {
    const seen: string[] = [];
    const first = skipOptions(
      args,
      1,
      // -e, -i and -l take an optional attached value: alone they are flags, attached they are refused as unknown.
      ['-0', '-r', '-t', '-p', '-x', '-o', '-e', '-i', '-l', '--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'],
      ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
      seen,
    );
    if (typeof first === 'string') return first;
    if (seen.some((option) => ['-I', '-i', '--replace'].includes(option))) return 'xargs -I puts its input into the command it runs';
    const command = args.slice(first);
    return { ...runs(command.length > 0 ? command : [{ value: 'echo', text: 'echo' }]), appendsInput: true };
  },
  find: (args) => {
    const commands: Arg[][] = [];
    let changesDirectory = false;
    for (let i = 1; i < args.length; i += 1) {
      const action = args[i]!.value;
      if (action !== '-exec' && action !== '-execdir' && action !== '-ok' && action !== '-okdir') continue;
      changesDirectory ||= action.endsWith('dir');
      let end = i + 1;
      while (end < args.length && args[end]!.value !== ';' && args[end]!.value !== '+') end += 1;
      // find puts each path where `{}` stands: such an argument is not known before it runs.
      commands.push(args.slice(i + 1, end).map((arg) => (arg.value?.includes('{}') ? { value: undefined, text: arg.text } : arg)));
      i = end;
    }
    return { commands: commands.filter((command) => command.length > 0), scripts: [], changesDirectory };
  },
  setsid: commandAfter({ flags: ['-c', '-f', '-w', '--ctty', '--fork', '--wait'], withValue: [] }),
  stdbuf: commandAfter({ flags: [], withValue: ['-i', '-o', '-e', '--input', '--output', '--error'] }),
  doas: commandAfter({ flags: ['-n'], withValue: ['-u', '-C'], refused: ['-s'] }),
  trap: (args) => {
    // `trap 'handler' SIGNAL…`: the handler is shell text run later.
    const first = args[1]?.value === '--' ? 2 : 1;
    const handler = args[first];
    if (handler === undefined || /^-[lp]$/.test(handler.value ?? '') || handler.value === '-' || handler.value === '' || args.length === first + 1) return none();
    if (handler.value === undefined) return `a trap handler \`${handler.text}\` that is not a literal word`;
    return { commands: [], scripts: [handler.value], changesDirectory: false };
  },
  // These change what later commands mean in ways the line does not show.
  alias: (args) => (args.length > 1 ? 'an alias changes what later commands run' : none()),
  hash: (args) => (args.some((arg) => /^-[a-zA-Z]*p/.test(arg.value ?? '')) ? '`hash -p` changes which program a name runs' : none()),
  enable: (args) => (args.some((arg) => /^-[a-zA-Z]*f/.test(arg.value ?? '')) ? '`enable -f` loads a builtin from a file' : none()),
  eval: (args) => {
    const dynamic = args.slice(1).find((arg) => arg.value === undefined);
    if (dynamic !== undefined) return `eval of \`${dynamic.text}\`, which is not a literal word`;
    return { commands: [], scripts: [args.slice(1).map((arg) => arg.value).join(' ')], changesDirectory: false };
  },
};

/** `bash [options] -c script [name args…]`; a script file is not read; commands from input are not visible. */
function unwrapShell(args: Arg[]): Unwrapped | string {
  let script = false;
  let i = 1;
  for (; i < args.length; i += 1) {
    const arg = args[i]!.value;
    if (arg === undefined) return `\`${args[i]!.text}\` is not a literal word`;
    if (arg === '--' || arg === '-') {
      i += 1;
      break;
    }
    if (arg === '-o' || arg === '+o' || arg === '-O' || arg === '+O' || arg === '--rcfile' || arg === '--init-file') i += 1;
    else if (/^[-+][a-zA-Z]+$/.test(arg)) script ||= arg.startsWith('-') && arg.includes('c');
    else if (!arg.startsWith('--')) break;
  }
  const name = args[0]!.text;
  if (script) {
    const text = args[i];
    if (text?.value === undefined) return `\`${name} -c\` without a literal script`;
    return { commands: [], scripts: [text.value], changesDirectory: false };
  }
  if (i >= args.length || args.slice(1, i).some((arg) => /^-[a-zA-Z]*s/.test(arg.value ?? ''))) return `\`${name}\` would read commands from its input`;
  return none();
}

/**
 * What a command runs besides itself: the command a wrapper (env, nohup, timeout, nice,
 * time, command, builtin, exec, xargs, sudo, doas, setsid, stdbuf, find -exec) runs, or
 * the script of eval, trap and `sh -c`. A string says why that cannot be told from the line.
 */
export function unwrap(args: Arg[], inputAppended = false): Unwrapped | string {
  const name = args[0]!.value!.split('/').pop()!;
  // Given more arguments by xargs, a shell still runs only its -c script (they become $0, $1…).
  if (SHELLS.has(name)) return unwrapShell(args);
  return WRAPPERS[name]?.(args, inputAppended) ?? none();
}
