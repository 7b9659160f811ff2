#!/usr/bin/env node
/**
 * Entry point of the `keel` command.
 *
 * @module
 */
import { main } from './program.js';

process.exitCode = await main();
