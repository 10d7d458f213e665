{
  'targets': [
    {
      'target_name': 'pnm',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      'sources': [
        'native/extract.cpp',
        'native/transport.cpp',
        'native/binding/addon.cc',
        'native/binding/network_object.cc',
      ],
      # Eigen (Debian's libeigen3-dev, headers only) for the sparse solves.
      'include_dirs': ['/usr/include/eigen3'],
      'cflags_cc': ['-O3'],
    },
  ],
}
