#!/usr/bin/env node
// The program of the root `npm start`: the local demo (local/start.ts), run from source through
// tsx in this same process, so Ctrl-C reaches it directly (no wrapper process to orphan).
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register(
  `data:text/javascript,${encodeURIComponent(`export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@k/source'] });
}`)}`,
);
registerTsx();
const { main } = await import('../local/start.ts');
process.exitCode = await main(process.argv.slice(2));
