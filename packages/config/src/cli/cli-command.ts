import type { CliIo } from './cli-io.js';
import type { CliOptionSpec, ParsedCommandLine } from './parse-command-line.js';

/**
 * CliCommand is one `k-config` subcommand. `run` gets the parsed command line (the global
 * `--kubeconfig` flag included) and returns the exit code; it may throw a KubeError, which the
 * CLI prints as `error: <message>` with exit code 1.
 */
export interface CliCommand {
  name: string;
  aliases?: readonly string[];
  summary: string;
  usage: string;
  options: Record<string, CliOptionSpec>;
  run(commandLine: ParsedCommandLine, io: CliIo): Promise<number>;
}

/** GLOBAL_OPTIONS are accepted by every command. */
export const GLOBAL_OPTIONS: Record<string, CliOptionSpec> = {
  kubeconfig: { type: 'string', description: 'use this kubeconfig file (alone, no merging)' },
  // kubectl accepts its global --context on every config command and ignores it but in view.
  context: {
    type: 'string',
    description: 'the context (used by view --minify, ignored elsewhere)',
  },
  help: { type: 'boolean', short: 'h', description: 'show help for the command' },
};

/** stringOption returns a string flag's value, or undefined when it was not given. */
export function stringOption(commandLine: ParsedCommandLine, name: string): string | undefined {
  const value = commandLine.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** booleanOption returns whether a boolean flag was given as true. */
export function booleanOption(commandLine: ParsedCommandLine, name: string): boolean {
  return commandLine.values[name] === true;
}
