import { EXIT, UsageError, type CliCommand, type CliIo } from './command.js';
import { COMMANDS } from './commands.js';

function overview(commands: readonly CliCommand[], prefix: readonly string[] = []): string {
  const matching = commands.filter((c) => prefix.every((word, i) => c.path[i] === word));
  const width = Math.max(...matching.map((c) => c.path.join(' ').length));
  const lines = matching.map((c) => `  agent-rpc ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return `usage: agent-rpc <command> [options]\n\ncommands:\n${lines.join('\n')}\n\n'agent-rpc <command> --help' describes a command. Exit codes: 0 ok, 1 problem found, 2 usage error, 3 failure.`;
}

/** Routes argv to its command. Never throws: every failure is one line on stderr and an exit code. */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly CliCommand[] = COMMANDS): Promise<number> {
  const command = commands
    .filter((c) => c.path.every((word, i) => argv[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    const known = commands.some((c) => c.path[0] === argv[0]);
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || (known && (argv[1] === undefined || argv[1] === '--help'))) {
      io.out(overview(commands, known ? [argv[0]!] : []));
      return argv.length === 0 || (known && argv[1] === undefined) ? EXIT.usage : EXIT.ok;
    }
    io.err(`agent-rpc: unknown command ${JSON.stringify(argv.slice(0, 2).join(' '))}; see agent-rpc --help`);
    return EXIT.usage;
  }
  const args = argv.slice(command.path.length);
  if (args.includes('--help') || args.includes('-h')) {
    io.out(`usage: ${command.usage}`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agent-rpc ${command.path.join(' ')}: ${error.message}; see --help`);
      return EXIT.usage;
    }
    io.err(`agent-rpc ${command.path.join(' ')}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  }
}
