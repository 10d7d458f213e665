{
  'targets': [
    {
      'target_name': 'coupling',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      'sources': [
        'native/coupling.cpp',
        'native/binding/addon.cc',
        'native/binding/coupler_object.cc',
      ],
      'cflags_cc': ['-O3'],
    },
  ],
}
