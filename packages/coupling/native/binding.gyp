# Built by `peclet-gyp rebuild --directory native` from the package root (its
# `build` script), or after install: `npx node-gyp rebuild --directory native`.
{
  'targets': [
    {
      'target_name': 'coupling',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      # The package's version, compiled in: the loader refuses a binary of another.
      'variables': {'peclet_version': "<!(node -p \"require('@peclet/core/gyp').packageVersion\")"},
      'defines': ['PECLET_ADDON_VERSION="<(peclet_version)"'],
      'sources': [
        'coupling.cpp',
        'binding/addon.cc',
        'binding/coupler_object.cc',
      ],
      'cflags_cc': ['-O3'],
    },
  ],
}
