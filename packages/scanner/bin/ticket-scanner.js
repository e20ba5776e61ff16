#!/usr/bin/env node
// The CLI is TypeScript run by tsx, like the issuer: no build step between `npm ci` and use.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
