import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ControlPlaneError } from './errors.js';
import { runCommand } from './run-command.js';

/** GoEnvironment is what the build needs to know about the Go toolchain. */
export interface GoEnvironment {
  readonly go: string;
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  readonly gomodcache: string;
  readonly gocache: string;
}

/** findGo returns the go executable to use: `go` on PATH, else /usr/local/go/bin/go, else `go`. */
export function findGo(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
}

/** goBuildEnvironment is the environment of every go command: local toolchain only, no cgo. */
export function goBuildEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // GOFLAGS from the user (e.g. -mod=vendor) would change what is built; the flags are explicit here.
  return { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '', GOWORK: 'off' };
}

/** readGoEnvironment asks the toolchain for its version, platform and caches (GO_UNAVAILABLE if it cannot). */
export async function readGoEnvironment(go: string = findGo()): Promise<GoEnvironment> {
  let output: string;
  try {
    output = (
      await runCommand(
        go,
        ['env', '-json', 'GOVERSION', 'GOOS', 'GOARCH', 'GOMODCACHE', 'GOCACHE'],
        {
          step: 'go env',
          env: goBuildEnvironment(),
          errorCode: 'GO_UNAVAILABLE',
        },
      )
    ).stdout;
  } catch (error) {
    throw new ControlPlaneError(
      'GO_UNAVAILABLE',
      `cannot run the Go toolchain (${go}); install Go 1.26 or put it on PATH`,
      {
        step: 'go env',
        cause: error,
      },
    );
  }
  const values = JSON.parse(output) as Record<string, string>;
  return {
    go,
    goVersion: values.GOVERSION ?? 'unknown',
    goos: values.GOOS ?? 'unknown',
    goarch: values.GOARCH ?? 'unknown',
    gomodcache: values.GOMODCACHE ?? '',
    gocache: values.GOCACHE ?? '',
  };
}
