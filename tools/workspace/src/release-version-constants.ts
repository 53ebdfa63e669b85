// release-version-constants (the last step of `npm run release:version`): a package that names its
// own version in its code (@k/transport's user agent) gets the version `changeset version` just
// wrote to its package.json. The packages' unit tests hold each constant to its manifest.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '../../..');

/** VERSION_CONSTANTS are the files that hold a package's version, by package folder. */
const VERSION_CONSTANTS: Record<string, { file: string; pattern: RegExp }> = {
  'packages/transport': {
    file: 'src/version.ts',
    pattern: /(export const TRANSPORT_VERSION = ')[^']*(';)/,
  },
};

for (const [directory, { file, pattern }] of Object.entries(VERSION_CONSTANTS)) {
  const { version } = JSON.parse(
    readFileSync(path.join(root, directory, 'package.json'), 'utf8'),
  ) as { version: string };
  const target = path.join(root, directory, file);
  const source = readFileSync(target, 'utf8');
  if (!pattern.test(source)) throw new Error(`${directory}/${file}: no version constant to update`);
  writeFileSync(target, source.replace(pattern, `$1${version}$2`));
  console.log(`${directory}/${file}: ${version}`);
}
