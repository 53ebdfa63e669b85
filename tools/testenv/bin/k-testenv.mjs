#!/usr/bin/env node
// Launcher: @k/testenv is private and runs from source, so load src/cli.ts through tsx's loader
// in this same process (signals and exit codes stay direct; no wrapper process to orphan).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
