{
  # The kernel's test addon, built twice under two module names (two
  # independent shared objects), plus a deliberately wrong addon.
  'target_defaults': {
    'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
    'cflags_cc': ['-O2'],
  },
  'targets': [
    {
      'target_name': 'alpha',
      'sources': ['src/addon.cc', 'src/field.cc'],
      'defines': ['PECLET_TEST_MODULE="alpha"'],
    },
    {
      'target_name': 'beta',
      'sources': ['src/addon.cc', 'src/field.cc'],
      'defines': ['PECLET_TEST_MODULE="beta"'],
    },
    {
      'target_name': 'wrong',
      'sources': ['src/wrong.cc'],
    },
  ],
}
