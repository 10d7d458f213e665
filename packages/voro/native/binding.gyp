# Built by `peclet-gyp rebuild --directory native` from the package root (its
# `build` script), or after install: `npx node-gyp rebuild --directory native`.
{
  'targets': [
    {
      'target_name': 'voro',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      # The package's version, compiled in: the loader refuses a binary of another.
      'variables': {'peclet_version': "<!(node -p \"require('@peclet/core/gyp').packageVersion\")"},
      'defines': ['PECLET_ADDON_VERSION="<(peclet_version)"'],
      'sources': [
        'convex_cell.cpp',
        'spatial_grid.cpp',
        'tessellation.cpp',
        'validation.cpp',
        'binding/addon.cc',
        'binding/tessellate.cc',
        'binding/tessellation_object.cc',
      ],
      # -ffp-contract=off: a fused multiply-add rounds differently in the two
      # cells sharing a face and breaks the symmetry of faces and volumes.
      'cflags_cc': ['-O3', '-ffp-contract=off'],
    },
  ],
}
