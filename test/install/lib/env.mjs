// The environment of every child: this one's, without what a package manager or the test
// runner put there for its own children, so each install runs with the defaults a user has.

// npm_config_* (pnpm passes the workspace's `ignore-scripts=true` this way), npm_package_*,
// pnpm's own, NODE_PATH (pnpm's .bin shims set it), NODE_OPTIONS and the test runner's context,
// and every PECLET_* switch of the shell this runs in.
const inherited = /^(npm_|pnpm_|PNPM_|INIT_CWD$|NODE_PATH$|NODE_OPTIONS$|NODE_TEST_CONTEXT$|PECLET_)/i;

/**
 * An `env` for `run` of `@peclet/test-harness` (which adds it to this process's environment):
 * the inherited variables above removed (an undefined value is left out of a child's
 * environment), the teardown trace off, then `extra`.
 */
export function cleanEnv(extra = {}) {
  const env = { PECLET_TEARDOWN_TRACE: undefined };
  for (const key of Object.keys(process.env)) if (inherited.test(key)) env[key] = undefined;
  return { ...env, ...extra };
}
