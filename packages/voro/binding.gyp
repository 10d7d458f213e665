{
  'targets': [
    {
      'target_name': 'voro',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      'sources': [
        'native/convex_cell.cpp',
        'native/spatial_grid.cpp',
        'native/tessellation.cpp',
        'native/validation.cpp',
        'native/binding/addon.cc',
        'native/binding/tessellate.cc',
        'native/binding/tessellation_object.cc',
      ],
      # -ffp-contract=off: a fused multiply-add rounds differently in the two
      # cells sharing a face and breaks the symmetry of faces and volumes.
      'cflags_cc': ['-O3', '-ffp-contract=off'],
    },
  ],
}
