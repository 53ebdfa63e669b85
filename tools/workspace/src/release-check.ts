// release-check (`npm run release:check`): what `changeset publish` would upload, checked before
// anything is uploaded. It builds the public packages (unless `--no-build`: CI's `npm test` has
// just built them from the same checkout), runs `npm publish --dry-run` for all of them at once,
// fails on any error or warning npm prints (but the dry run's own note that nobody is logged
// in), and checks each tarball's file list (tarballProblems). Exit status 1 lists every problem.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { publishDryRun } from './release-dry-run.js';
import { tarballProblems, type PackageManifest } from './release-tarball-problems.js';
import { WORKSPACE_ROOT, workspacePackages } from './workspace-packages.js';

/** build builds the packages `names` (comma-separated) with Nx, its output shown; its exit status. */
function build(names: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['nx', 'run-many', '-t', 'build', '-p', names], {
      cwd: WORKSPACE_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('close', resolve);
  });
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

async function main(): Promise<number> {
  const started = performance.now();
  const all = workspacePackages<PackageManifest>();
  const published = all.filter((workspace) => !workspace.manifest.private);
  const versions = new Map(
    all.map(({ manifest }) => [manifest.name, manifest.private ? undefined : manifest.version]),
  );

  if (!process.argv.includes('--no-build')) {
    const names = published.map(({ manifest }) => manifest.name).join(',');
    console.log(`release-check: building ${names}`);
    const status = await build(names);
    if (status !== 0) {
      console.error(`release-check: the build failed (exit ${status})`);
      return 1;
    }
    console.log(`release-check: built in ${seconds(started)}`);
  }

  const dryRunStarted = performance.now();
  const { reports, problems } = await publishDryRun(
    WORKSPACE_ROOT,
    published.map(({ directory }) => directory),
  );

  const rows: string[][] = [['package', 'version', 'files', 'packed', 'unpacked']];
  for (const { directory, manifest } of published) {
    const report = reports[manifest.name];
    if (!report) {
      problems.push(`${manifest.name}: npm published nothing for it`);
      continue;
    }
    problems.push(
      ...tarballProblems(
        {
          directory: path.join(WORKSPACE_ROOT, directory),
          manifest,
          files: report.files.map((file) => file.path),
        },
        versions,
      ),
    );
    rows.push([
      report.name,
      report.version,
      String(report.files.length),
      `${(report.size / 1024).toFixed(0)} KiB`,
      `${(report.unpackedSize / 1024).toFixed(0)} KiB`,
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  console.log(
    `release-check: ${published.length} packages, dry run and checks in ${seconds(dryRunStarted)}, ` +
      `${seconds(started)} in all`,
  );
  if (problems.length > 0) {
    console.error(`release-check: ${problems.length} problems:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  console.log('release-check: every package can be published as it is');
  return 0;
}

process.exitCode = await main();
