import { KubeError } from '../errors.js';
import type { CliCommand } from './cli-command.js';
import { GLOBAL_OPTIONS } from './cli-command.js';
import type { CliIo } from './cli-io.js';
import { CliUsageError } from './cli-io.js';
import { currentContextCommand } from './commands/current-context.js';
import { getContextsCommand } from './commands/get-contexts.js';
import { setContextCommand } from './commands/set-context.js';
import { useContextCommand } from './commands/use-context.js';
import { viewCommand } from './commands/view.js';
import { parseCommandLine } from './parse-command-line.js';

const COMMANDS: readonly CliCommand[] = [
  viewCommand,
  currentContextCommand,
  getContextsCommand,
  useContextCommand,
  setContextCommand,
];

/**
 * run executes one `k-config` command line (`argv` without the program name) and returns its
 * exit code: 0 on success, 1 on any error, which is printed to `io.stderr` as `error: …` like
 * kubectl does. It reads and writes only through `io` (never `process`), so it can run
 * in-process, concurrently, with any environment and working directory. It never throws.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overview());
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.find(
    (candidate) => candidate.name === name || candidate.aliases?.includes(name),
  );
  if (!command) {
    io.stderr.write(
      `error: unknown command "${name}" for "k-config"\nRun 'k-config --help' for usage.\n`,
    );
    return 1;
  }
  try {
    const commandLine = parseCommandLine(command.name, rest, {
      ...GLOBAL_OPTIONS,
      ...command.options,
    });
    if (commandLine.values.help === true) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run(commandLine, io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr.write(
        `error: ${error.message}\nSee 'k-config ${error.command} --help' for usage.\n`,
      );
      return 1;
    }
    const message =
      KubeError.isInstance(error) || error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${message}\n`);
    return 1;
  }
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`);
  return [
    'k-config: view and change kubeconfig files, as `kubectl config` does.',
    '',
    'Files: --kubeconfig FILE alone, else the KUBECONFIG list (merged, first wins), else ~/.kube/config.',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'k-config COMMAND --help' for a command's flags.",
    '',
  ].join('\n');
}

function commandHelp(command: CliCommand): string {
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  const flags = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ' VALUE' : ''}`;
    return `  ${flag.padEnd(26)}${spec.description}`;
  });
  const aliases = command.aliases?.length ? `\nAliases: ${command.aliases.join(', ')}\n` : '';
  return `${command.summary}\n${aliases}\nUsage:\n  ${command.usage} [--kubeconfig FILE]\n\nFlags:\n${flags.join('\n')}\n`;
}
