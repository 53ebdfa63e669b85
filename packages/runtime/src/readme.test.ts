import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// The README's first operator is examples/configmap-mirror.ts (run by e2e/examples.e2e.test.ts):
// the two must not drift apart.
describe('README', () => {
  it('quotes examples/configmap-mirror.ts from its imports on, unchanged', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const example = await readFile(
      new URL('../examples/configmap-mirror.ts', import.meta.url),
      'utf8',
    );
    const program = example.slice(example.indexOf('import { ignoreNotFound }'));
    expect(program.length).toBeGreaterThan(1000);
    expect(readme).toContain(`\`\`\`ts\n${program}\`\`\``);
  });

  it('quotes examples/webhooks.ts (run by tools/workspace/e2e/installed-examples) from its imports on, unchanged', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const example = await readFile(new URL('../examples/webhooks.ts', import.meta.url), 'utf8');
    const program = example.slice(example.indexOf('import { AdmissionDenied'));
    expect(program.length).toBeGreaterThan(1000);
    expect(readme).toContain(`## Webhooks`);
    expect(readme).toContain(`\`\`\`ts\n${program}\`\`\``);
  });
});
