# Built against the system MPI (Open MPI from Debian: openmpi-bin and libopenmpi-dev), never
# prebuilt: MPI builds are not binary-compatible across implementations. The package's `build`
# script runs it when an MPI is found; after install: `npx node-gyp rebuild --directory native`.
{
  'targets': [
    {
      'target_name': 'mpi',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      # The package's version, compiled in: the loader refuses a binary of another.
      'variables': {'peclet_version': "<!(node -p \"require('@peclet/core/gyp').packageVersion\")"},
      'defines': ['PECLET_ADDON_VERSION="<(peclet_version)"'],
      'sources': ['mpi.cc'],
      'cflags_cc': ['-O2', '<!@(node ../scripts/mpi-flags.mjs --cflags)'],
      'libraries': ['<!@(node ../scripts/mpi-flags.mjs --libs)', '-ldl'],
    },
  ],
}
