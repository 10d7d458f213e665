#!/usr/bin/env node
// The `peclet` executable: Ctrl-C finalizes every module before the process dies by the signal;
// the exit status is main()'s (0 success, 1 failure, 2 usage).
import { main } from './program.js';
import { installSignalHandling } from './signals.js';

installSignalHandling();
// A reader that stops early (`peclet … --json | head -c 10`, `| true`) closes the pipe: nothing
// is left to say to it, so the run ends quietly instead of with an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
main(process.argv.slice(2)).then((status) => {
  // exitCode, not exit(): stdout is flushed and modules finalize on the natural exit path.
  process.exitCode = status;
});
