// What a tarball must hold to be published as it is: checked on the packed bytes, not on the
// workspace, since `files`, `workspace:` rewriting and ignore rules only show there.
import assert from 'node:assert/strict';

const installScripts = ['preinstall', 'install', 'postinstall'];

// Every path string under an `exports` map (conditions and subpaths alike).
function exportTargets(exports) {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

/** Build outputs that `files` must leave out. */
export function buildOutputs(paths, kind) {
  return paths.filter(
    (path) =>
      /(^|\/)build\//.test(path) ||
      /\.(o|obj|a|lib|gch|pch|d)$/.test(path) ||
      /(^|\/)node_modules\//.test(path) ||
      (kind !== 'platform' && path.endsWith('.node')),
  );
}

/**
 * Asserts that `pkg` (a packed package: `name`, `version`, `kind`, `files` — the tarball's
 * Map — and `manifest`, its package.json) is ready for the registry; `packed` holds every
 * packed package by name, `platformKey` the platform of the prebuilt addons.
 */
export function assertRegistryReady(pkg, packed, platformKey) {
  const { files, manifest } = pkg;
  const paths = [...files.keys()];
  const label = `${pkg.name} (${pkg.relativeDir})`;
  assert.deepEqual(
    paths.filter((path) => !path.startsWith('package/')),
    [],
    `${label}: entries outside package/`,
  );
  const has = (path) => files.has(`package/${path.replace(/^\.\//, '')}`);

  const text = files.get('package/package.json')?.toString('utf8');
  assert.ok(text, `${label}: no package.json`);
  assert.doesNotMatch(text, /workspace:/, `${label}: a workspace: specifier was left in package.json`);
  assert.equal(manifest.name, pkg.name);
  assert.match(manifest.version, /^\d+\.\d+\.\d+(-[\w.]+)?$/, `${label}: version`);
  assert.equal(manifest.version, pkg.version);
  assert.ok(typeof manifest.license === 'string' && manifest.license !== '', `${label}: no license`);
  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  assert.ok(typeof repository === 'string' && repository !== '', `${label}: no repository`);
  assert.ok(has('README.md'), `${label}: no README.md`);

  // Peclet packages depend on each other at the exact version packed beside them.
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      const other = packed.get(name);
      if (other)
        assert.equal(spec, other.version, `${label}: ${field}.${name} is ${spec}, ${name} is ${other.version}`);
    }
  }

  assert.deepEqual(buildOutputs(paths, pkg.kind), [], `${label}: build outputs in the tarball`);
  for (const script of installScripts) {
    assert.equal(manifest.scripts?.[script], undefined, `${label}: scripts.${script} runs at install`);
  }
  // npm and pnpm run `node-gyp rebuild` at install for a package with a root binding.gyp.
  assert.ok(!has('binding.gyp'), `${label}: a root binding.gyp makes installs compile`);

  if (pkg.kind === 'platform') {
    assert.deepEqual(manifest.os, ['linux'], `${label}: os`);
    assert.deepEqual(manifest.cpu, ['x64'], `${label}: cpu`);
    assert.deepEqual(manifest.libc, ['glibc'], `${label}: libc`);
    assert.match(manifest.main ?? '', /^[a-z][a-z0-9_]*\.node$/, `${label}: main is not the addon`);
    const binary = files.get(`package/${manifest.main}`);
    assert.ok(binary, `${label}: ${manifest.main} is not in the tarball`);
    assert.deepEqual(
      [...binary.subarray(0, 4)],
      [0x7f, 0x45, 0x4c, 0x46],
      `${label}: ${manifest.main} is not an ELF file`,
    );
    assert.deepEqual(Object.keys(manifest.scripts ?? {}), [], `${label}: scripts`);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      assert.deepEqual(Object.keys(manifest[field] ?? {}), [], `${label}: ${field}`);
    }
    return;
  }

  const entries = [
    manifest.main,
    manifest.module,
    manifest.types,
    ...exportTargets(manifest.exports),
    ...(typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {})),
  ].filter((entry) => typeof entry === 'string');
  assert.ok(entries.length > 0, `${label}: neither main nor exports`);
  assert.deepEqual(
    entries.filter((entry) => !has(entry)),
    [],
    `${label}: entry points missing from the tarball`,
  );

  if (pkg.kind === 'solver') {
    const platformName = `${pkg.name}-${platformKey}`;
    assert.equal(
      manifest.optionalDependencies?.[platformName],
      manifest.version,
      `${label}: optionalDependencies must hold ${platformName} at exactly ${manifest.version}`,
    );
    assert.equal(
      packed.get(platformName)?.version,
      manifest.version,
      `${platformName} was not packed at ${manifest.version}`,
    );
    assert.equal(manifest.dependencies?.[platformName], undefined, `${label}: ${platformName} as a hard dependency`);
  }
}
