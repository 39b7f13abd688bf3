import type { DaemonPlugins } from '../runtime/index.js';
import { EXIT, UsageError, type CliCommand, type CliIo } from './command.js';
import { COMMANDS } from './commands.js';

const EXIT_CODES = 'Exit codes: 0 ok, 1 a problem was found (e.g. audit verify), 2 usage error, 3 the command could not run.';
const isHelp = (word: string | undefined): boolean => word === '--help' || word === '-h' || word === 'help';

/** The commands under `prefix` (all of them for an empty prefix), one line each. */
function overview(commands: readonly CliCommand[], prefix: readonly string[]): string {
  const matching = commands.filter((c) => startsWith(c.path, prefix));
  const width = Math.max(...matching.map((c) => c.path.join(' ').length));
  const lines = matching.map((c) => `  agent-rpc ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  const name = ['agent-rpc', ...prefix].join(' ');
  return `usage: ${name} <command> [options]\n\ncommands:\n${lines.join('\n')}\n\n'agent-rpc <command> --help' describes a command. ${EXIT_CODES}`;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((word, i) => words[i] === word);
}

/** The longest run of leading words that names a command group, e.g. `['audit']`. */
function groupPrefix(argv: readonly string[], commands: readonly CliCommand[]): string[] {
  const prefix: string[] = [];
  while (argv[prefix.length] !== undefined && commands.some((c) => c.path.length > prefix.length + 1 && startsWith(c.path, [...prefix, argv[prefix.length]!]))) {
    prefix.push(argv[prefix.length]!);
  }
  return prefix;
}

/**
 * Routes argv to the command whose path it starts with; config files are read with the
 * `plugins`. Never throws: help goes to stdout; every failure is one line on
 * stderr and an exit code (see EXIT).
 */
export async function runCli(argv: readonly string[], io: CliIo, plugins: DaemonPlugins, commands: readonly CliCommand[] = COMMANDS): Promise<number> {
  const command = commands.filter((c) => startsWith(argv, c.path)).sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    const prefix = groupPrefix(argv, commands);
    const next = argv[prefix.length];
    const where = ['agent-rpc', ...prefix].join(' ');
    if (isHelp(next)) {
      io.out(overview(commands, prefix));
      return EXIT.ok;
    }
    const choices = [...new Set(commands.filter((c) => startsWith(c.path, prefix)).map((c) => c.path[prefix.length]))].join(', ');
    io.err(next === undefined ? `${where}: missing command (${choices}); see ${where} --help` : `${where}: unknown command ${JSON.stringify(next)} (${choices}); see ${where} --help`);
    return EXIT.usage;
  }
  const args = argv.slice(command.path.length);
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    io.out(`usage: ${command.usage}\n\n${EXIT_CODES}`);
    return EXIT.ok;
  }
  const name = `agent-rpc ${command.path.join(' ')}`;
  try {
    return await command.run(args, { ...io, plugins });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${name}: ${error.message}; see ${name} --help`);
      return EXIT.usage;
    }
    io.err(`${name}: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    return EXIT.failed;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
