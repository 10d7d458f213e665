'use strict';
// The gyp entry of the peclet C++ kernel: addons read these paths from
// binding.gyp, so consuming the header-only kernel needs no build step.
//
//   "dependencies": ["<!(node -p \"require('@peclet/core/gyp').target\")"]
//
// The `kernel` target carries the include dirs (the kernel's and
// node-addon-api's), the Node-API version, C++ exceptions, and hidden symbol
// visibility so that no kernel static is shared between two addons.
const fs = require('node:fs');
const path = require('node:path');

// The version in the nearest package.json at or above the working directory
// (gyp runs `<!(...)` commands in the directory of the .gyp file).
function packageVersion() {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version ?? '';
    if (path.dirname(dir) === dir) return '';
  }
}

const include = path.join(__dirname, '..', 'include');
const gypFile = path.join(__dirname, 'kernel.gyp');

module.exports = {
  /** Directory holding `peclet/*.hpp`. */
  include,
  /** Same, quoted for gyp's include_dirs. */
  include_dir: include,
  /** The gyp target to depend on: `<path>/kernel.gyp:kernel`. */
  target: `${gypFile}:kernel`,
  /** The gyp file itself. */
  gyp: gypFile,
  /** The calling package's version, for `PECLET_ADDON_VERSION` (see native/binding.gyp of a solver). */
  get packageVersion() {
    return packageVersion();
  },
};
