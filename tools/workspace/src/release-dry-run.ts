import { spawn } from 'node:child_process';

/** DryRunReport is what `npm publish --dry-run --json` prints for one package. */
interface DryRunReport {
  name: string;
  version: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** DryRun is what a dry run of several workspaces said: its reports, and what went wrong. */
export interface DryRun {
  /** reports are by package name. */
  reports: Record<string, DryRunReport>;
  /** problems are npm's warnings and errors, its exit status and unreadable output. */
  problems: string[];
}

/** EXPECTED_WARNINGS are npm's warnings that every dry run prints, on any machine. */
const EXPECTED_WARNINGS = [
  /^npm warn publish This command requires you to be logged in .*\(dry-run\)$/,
];

/**
 * terminalEnvironment is this process's environment without what an npm script run adds
 * (`npm_config_local_prefix` would make npm publish the calling project instead); npm still
 * reads the user's and the project's .npmrc itself.
 */
function terminalEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
}

/**
 * publishDryRun runs `npm publish --dry-run --json` for the workspaces `directories` (relative
 * to `root`, the workspace root) in one npm process, as `changeset publish` would publish them
 * (lifecycle scripts included). Every line npm prints as a warning or an error is a problem
 * (npm rewriting a manifest at publish time, say), except the dry run's own note that nobody is
 * logged in; so are a non-zero exit status and output that is not JSON.
 */
export async function publishDryRun(root: string, directories: readonly string[]): Promise<DryRun> {
  const { status, stdout, stderr } = await new Promise<{
    status: number | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const child = spawn(
      'npm',
      [
        'publish',
        '--dry-run',
        '--json',
        ...directories.flatMap((directory) => ['--workspace', directory]),
      ],
      { cwd: root, env: terminalEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
  const problems: string[] = [];
  for (const line of stderr.split('\n')) {
    if (!/^npm (warn|error|ERR!)/i.test(line)) continue;
    if (EXPECTED_WARNINGS.some((expected) => expected.test(line))) continue;
    problems.push(`npm: ${line}`);
  }
  if (status !== 0) problems.push(`npm publish --dry-run exited ${status}`);
  let reports: Record<string, DryRunReport> = {};
  try {
    reports = JSON.parse(stdout) as Record<string, DryRunReport>;
  } catch {
    problems.push(`npm publish --dry-run --json printed no JSON: ${stdout.slice(0, 200)}`);
  }
  return { reports, problems };
}
