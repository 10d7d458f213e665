// valgrind memcheck over Node 20 with the release addons.
//
// --undef-value-errors=no: V8 scans stacks and heap conservatively and copies
// uninitialised padding, which memcheck reports as undefined-value uses in
// V8's own code; addressability errors (invalid reads/writes, bad frees,
// use after free) — what a teardown ordering bug produces — stay on.
// --error-exitcode=99 turns any remaining error into the exit status, and
// the report is read as well: an error whose stack touches one of our .node
// files is named in the failure.

export const valgrindArgs = [
  '--tool=memcheck',
  '--error-exitcode=99',
  '--undef-value-errors=no',
  '--leak-check=no',
  '--num-callers=40',
  // V8 writes machine code at run time.
  '--smc-check=all-non-file',
];

/** Memcheck's error count, and the error blocks whose stack names one of our addons. */
export function valgrindFindings(stderr) {
  const summary = stderr.match(/ERROR SUMMARY: (\d+) errors/);
  const blocks = stderr.split(/\n==\d+== \n/).filter((b) => /\.node\)/.test(b) && /==\d+== {4}(at|by) /.test(b));
  return { errors: summary ? Number(summary[1]) : null, ours: blocks };
}
