// What a user sees when a solver has no usable addon: the AddonLoadError of
// packages/core/src/load.ts, as its text must read from an installed package.

/**
 * The whole message for a platform package that was left out (`npm --omit=optional`).
 * `probe` is what the project's probe printed: the package's real directory (`root`) and the
 * runtime (`node`, `napi`, `glibc`).
 */
export function missingPlatformPackageMessage({ name, packageName, version, platformKey, probe }) {
  const { root, node, napi, glibc } = probe;
  const upper = name.toUpperCase();
  return [
    `${packageName} could not load its native addon ${name}.node on ${platformKey} (Node ${node}, Node-API ${napi}, glibc ${glibc}). Tried, in order:`,
    `  1. PECLET_${upper}_BINARY: not set`,
    `  2. local build ${root}/native/build/Release/${name}.node: not found`,
    `  3. platform package ${packageName}-${platformKey}: not installed`,
    'To fix it:',
    `  - optional dependencies were left out (npm --omit=optional, pnpm --no-optional, or optional=false): install ${packageName} again without that; ${packageName}-${platformKey}@${version} is its optional dependency holding the compiled addon.`,
    `  - build from source (needs a C++17 compiler, make and python3): cd ${root} && npx node-gyp rebuild --directory native`,
    `  - or set PECLET_${upper}_BINARY to the path of a ${name}.node built for ${packageName} ${version}.`,
  ].join('\n');
}

/** The first line of every such message (the runtime as the loader names it). */
export function headline({ name, packageName, platformKey, probe }) {
  const { node, napi, glibc } = probe;
  return `${packageName} could not load its native addon ${name}.node on ${platformKey} (Node ${node}, Node-API ${napi}, glibc ${glibc}). Tried, in order:`;
}

/**
 * A child that calls the solver once and prints what it threw as JSON: whether the import
 * itself succeeded, the error's name, code, message and attempts, whether it is core's
 * AddonLoadError (`core`: a specifier that resolves to the same @peclet/core, or omitted), and
 * whether a second call throws the same message.
 */
export function firstUseSource({ packageName, call, core }) {
  return `let solver;
try {
  solver = await import('${packageName}');
} catch (error) {
  console.log(JSON.stringify({ imported: false, message: String(error && error.stack) }));
  process.exit(0);
}
const AddonLoadError = ${core ? `(await import('${core}')).AddonLoadError` : 'undefined'};
const attempt = () => {
  try {
    ${call}
    return undefined;
  } catch (error) {
    return error;
  }
};
const error = attempt();
const again = attempt();
console.log(JSON.stringify({
  imported: true,
  threw: error !== undefined,
  name: error?.name,
  code: error?.code,
  message: error?.message,
  attempts: error?.attempts,
  isAddonLoadError: AddonLoadError === undefined ? null : error instanceof AddonLoadError,
  againSameMessage: again?.message === error?.message,
}));
`;
}
