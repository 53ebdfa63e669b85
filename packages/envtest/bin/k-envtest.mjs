#!/usr/bin/env node
// k-envtest. Installed (this file's real path is inside a node_modules folder) it
// runs the built JavaScript, dist/cli/main.js, and nothing else. In a source checkout of the k
// workspace it runs src/ through tsx with the `@k/source` condition instead, like every other
// workspace import: so `npx k-envtest` works right after `npm ci`, before any build, and never runs a
// stale dist/ (docs/decisions/0011-workspace-commands-run-from-source.md).
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { fileURLToPath, URL } from 'node:url';

const BUILT = new URL('../dist/cli/main.js', import.meta.url);
const SOURCE = new URL('../src/cli/main.ts', import.meta.url);
const installed = fileURLToPath(import.meta.url)
  .split(/[\\/]/)
  .includes('node_modules');

async function sourceLoader() {
  if (installed || !existsSync(SOURCE)) return false;
  try {
    const tsx = await import('tsx/esm/api');
    const condition = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@k/source'] });
}`;
    register(`data:text/javascript,${encodeURIComponent(condition)}`);
    tsx.register();
    return true;
  } catch {
    return false; // no tsx (a production-only install of the workspace): use the build if any
  }
}

if (await sourceLoader()) {
  await import(SOURCE.href);
} else if (existsSync(BUILT)) {
  await import(BUILT.href);
} else {
  process.stderr.write(
    `k-envtest: ${fileURLToPath(BUILT)} is missing: this copy of @k/envtest was never built\n`,
  );
  process.exitCode = 1;
}
