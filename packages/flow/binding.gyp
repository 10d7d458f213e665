{
  'targets': [
    {
      'target_name': 'flow',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      'sources': [
        'native/lattice.cpp',
        'native/binding/addon.cc',
        'native/binding/lattice_object.cc',
      ],
      'cflags_cc': ['-O3'],
    },
  ],
}
