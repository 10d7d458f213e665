{
  'variables': {
    # PECLET_SANITIZE=1 builds with AddressSanitizer + UBSan (tests preload the runtime).
    'peclet_sanitize%': '<!(node -p "process.env.PECLET_SANITIZE === \'1\' ? 1 : 0")',
    'peclet_exports_map%': '<!(node -p "require(\'path\').join(process.cwd(), \'exports.map\')")',
    'peclet_napi_include%': '<!(node -p "require(\'node-addon-api\').include_dir")',
  },
  'targets': [
    {
      'target_name': 'kernel',
      'type': 'none',
      'direct_dependent_settings': {
        'include_dirs': ['../include', '<(peclet_napi_include)'],
        'defines': ['NAPI_VERSION=8', 'NAPI_CPP_EXCEPTIONS', 'NODE_ADDON_API_DISABLE_DEPRECATED', 'NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS', 'NODE_ADDON_API_CPP_EXCEPTIONS_ALL'],
        'cflags!': ['-fno-exceptions'],
        'cflags_cc!': ['-fno-exceptions', '-fno-rtti', '-std=gnu++17'],
        # Hidden visibility: inline-function statics with default visibility
        # become process-unique symbols on Linux and would be shared by addons.
        'cflags': ['-fvisibility=hidden'],
        'cflags_cc': ['-std=c++17', '-fexceptions', '-fvisibility=hidden', '-fvisibility-inlines-hidden'],
        'ldflags': ['-Wl,--version-script=<(peclet_exports_map)'],
        'xcode_settings': {
          'GCC_ENABLE_CPP_EXCEPTIONS': 'YES',
          'GCC_SYMBOLS_PRIVATE_EXTERN': 'YES',
          'CLANG_CXX_LANGUAGE_STANDARD': 'c++17',
        },
        'conditions': [
          # vptr is off: node-addon-api's ObjectWrap casts `this` to the derived
          # class inside its own constructor, before the derived part exists.
          ['peclet_sanitize==1', {
            'cflags': ['-fsanitize=address,undefined', '-fno-omit-frame-pointer', '-fno-sanitize-recover=undefined', '-fno-sanitize=vptr'],
            # -O0: the sanitized builds check memory and teardown, not speed. At
            # -O3 they took about six minutes to compile; at -O1 two, at -O0 one
            # (their runs take twice as long as at -O1, which costs less).
            'cflags_cc': ['-fsanitize=address,undefined', '-fno-omit-frame-pointer', '-fno-sanitize-recover=undefined', '-fno-sanitize=vptr', '-O0'],
            'ldflags': ['-fsanitize=address,undefined'],
          }],
        ],
      },
    },
  ],
}
