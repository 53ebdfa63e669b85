/** CliOutput is where the CLI writes text: `process.stdout`, or a collector in tests. */
interface CliOutput {
  write(text: string): unknown;
}

/**
 * CliIo is everything the CLI takes from its process: the environment (`KUBECONFIG`, `HOME`),
 * the working directory that relative paths resolve against, and the two output streams. The
 * CLI never reads `process` itself, so tests can run it in-process with any of these.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: CliOutput;
  stderr: CliOutput;
}

/**
 * CliUsageError is a mistake on the command line (unknown flag, wrong number of arguments).
 * The CLI prints it with a pointer to the command's `--help` and exits 1, as kubectl does.
 */
export class CliUsageError extends Error {
  readonly command: string;

  constructor(command: string, message: string) {
    super(message);
    this.name = 'CliUsageError';
    this.command = command;
  }
}
