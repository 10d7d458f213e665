# Built by `peclet-gyp rebuild --directory native` from the package root (its
# `build` script), or after install: `npx node-gyp rebuild --directory native`.
{
  'targets': [
    {
      'target_name': 'pnm',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      # The package's version, compiled in: the loader refuses a binary of another.
      'variables': {'peclet_version': "<!(node -p \"require('@peclet/core/gyp').packageVersion\")"},
      'defines': ['PECLET_ADDON_VERSION="<(peclet_version)"'],
      'sources': [
        'extract.cpp',
        'transport.cpp',
        'binding/addon.cc',
        'binding/network_object.cc',
      ],
      # Eigen (Debian's libeigen3-dev, headers only) for the sparse solves.
      'include_dirs': ['/usr/include/eigen3'],
      'cflags_cc': ['-O3'],
    },
  ],
}
