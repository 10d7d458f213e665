# Built by `peclet-gyp rebuild --directory native` from the package root (its
# `build` script), or after install: `npx node-gyp rebuild --directory native`.
{
  'targets': [
    {
      'target_name': 'pnm',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      # The package's version, compiled in: the loader refuses a binary of another.
      'variables': {'peclet_version': "<!(node -p \"require('@peclet/core/gyp').packageVersion\")"},
      'defines': ['PECLET_ADDON_VERSION="<(peclet_version)"', 'EIGEN_MPL2_ONLY'],
      'sources': [
        'extract.cpp',
        'transport.cpp',
        'voxel_diffusion.cpp',
        'binding/addon.cc',
        'binding/network_object.cc',
      ],
      # Eigen 3.4.0 (headers only, vendored under third_party/eigen; MPL-2.0 code only) for
      # the sparse solves: a build from source needs no system package.
      'include_dirs': ['third_party/eigen'],
      'cflags_cc': ['-O3'],
    },
  ],
}
