{
  'targets': [
    {
      'target_name': 'dem',
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
      'sources': [
        'native/contact_law.cpp',
        'native/deposition.cpp',
        'native/neighbor_list.cpp',
        'native/random_insertion.cpp',
        'native/simulation.cpp',
        'native/simulation_queries.cpp',
        'native/sphere_box_volume.cpp',
        'native/validation.cpp',
        'native/binding/addon.cc',
        'native/binding/simulation_object.cc',
      ],
      'cflags_cc': ['-O3'],
    },
  ],
}
