#!/usr/bin/env node
// The CLI is TypeScript, with no build step between `npm ci` and use. It runs from a bundle of its
// sources made on first use and made again whenever one of them changes (see bundle.js): a start
// takes about a third of the time that compiling each file through tsx takes. When no bundle can
// be had, tsx runs the sources as they are.
import process from 'node:process';
import { loadCli } from './bundle.js';

const { main } = await loadCli();
process.exitCode = await main(process.argv.slice(2));
