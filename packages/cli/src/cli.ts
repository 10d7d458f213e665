#!/usr/bin/env node
// The `peclet` executable: Ctrl-C finalizes every module before the process dies by the signal;
// the exit status is main()'s (0 success, 1 failure, 2 usage).
import { main } from './program.js';
import { installSignalHandling } from './signals.js';

installSignalHandling();
main(process.argv.slice(2)).then((status) => {
  // exitCode, not exit(): stdout is flushed and modules finalize on the natural exit path.
  process.exitCode = status;
});
