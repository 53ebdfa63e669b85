// check-dist: what publint and attw cannot see in this package's build. The private engine
// (@k/testenv) is bundled, so no declaration may name it; the engine's watchdog script must sit
// beside the bundled engine; and the root entry must not load vitest (node:test and plain-script
// users have none).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.join(import.meta.dirname, 'dist');
const problems = [];
const files = readdirSync(dist, { recursive: true, encoding: 'utf8' });
for (const file of files) {
  if (!/\.d\.c?ts$/.test(file)) continue;
  if (readFileSync(path.join(dist, file), 'utf8').includes('@k/testenv')) {
    problems.push(`dist/${file} names @k/testenv, which is not published`);
  }
}
for (const script of ['watchdog.mjs', 'cli/watchdog.mjs']) {
  if (!existsSync(path.join(dist, script))) problems.push(`dist/${script} is missing`);
}
const loadedByRoot = new Set();
const pending = ['index.js', 'index.cjs', 'node-test.js', 'node-test.cjs'];
while (pending.length > 0) {
  const file = pending.pop();
  if (loadedByRoot.has(file)) continue;
  loadedByRoot.add(file);
  const text = readFileSync(path.join(dist, file), 'utf8');
  if (/(?:from\s*|import\(\s*|require\(\s*)["']vitest(?:\/[^"']*)?["']/.test(text)) {
    problems.push(`dist/${file} (loaded by the root or node-test entry) imports vitest`);
  }
  // Builtins that exist only with their prefix: a bundler that strips `node:` breaks them.
  if (/(?:from\s*|import\(\s*|require\(\s*)["'](?:test|sqlite|sea)(?:\/[^"']*)?["']/.test(text)) {
    problems.push(`dist/${file} imports a prefix-only builtin without its node: prefix`);
  }
  for (const match of text.matchAll(/(?:from\s*|import\(\s*|require\(\s*)["']\.\/([^"']+)["']/g)) {
    pending.push(path.posix.join(path.posix.dirname(file), match[1]));
  }
}
if (problems.length > 0) {
  console.error(`check-dist:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-dist: ${files.length} files checked`);
