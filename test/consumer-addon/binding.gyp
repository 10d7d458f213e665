{
  'targets': [
    {
      'target_name': 'histogram',
      'sources': ['src/histogram.cc'],
      # Everything the kernel needs (include dirs, flags, hidden visibility)
      # comes with this one dependency.
      'dependencies': ["<!(node -p \"require('@peclet/core/gyp').target\")"],
    },
  ],
}
