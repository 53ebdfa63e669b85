#!/usr/bin/env node
// demo-operator. In a source checkout of the k workspace it runs src/ through tsx with the
// `@k/source` condition, like every workspace command (docs/decisions/0011); installed (inside a
// node_modules folder, or in the image, which has no src/) it runs the built dist/cli.js.
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { fileURLToPath, URL } from 'node:url';

const BUILT = new URL('../dist/cli.js', import.meta.url);
const SOURCE = new URL('../src/cli.ts', import.meta.url);
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
    return false; // no tsx (a production install): use the build
  }
}

if (await sourceLoader()) {
  await import(SOURCE.href);
} else if (existsSync(BUILT)) {
  await import(BUILT.href);
} else {
  process.stderr.write(`demo-operator: ${fileURLToPath(BUILT)} is missing: build it first\n`);
  process.exitCode = 1;
}
