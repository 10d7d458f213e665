{
  'variables': {
    'peclet_sanitize%': '<!(node -p "process.env.PECLET_SANITIZE === \'1\' ? 1 : 0")',
  },
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
      'conditions': [
        # The sanitized build (checks memory and teardown, not speed) at -O0 here: at -O1 the
        # step's 16 instantiations took 77 s to compile under ASan + UBSan, at -O0 15 s.
        ['peclet_sanitize==1', {'cflags_cc!': ['-O1', '-O3'], 'cflags_cc': ['-O0']}],
      ],
    },
  ],
}
