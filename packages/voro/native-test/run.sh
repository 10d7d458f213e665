#!/bin/sh
# Installs voro++-dev when missing (Debian), then builds and runs the unit tests and the
# side-by-side comparison with voro++.
set -e
cd "$(dirname "$0")"
if [ ! -f /usr/include/voro++/voro++.hh ]; then
  apt-get update
  apt-get install -y voro++-dev
fi
make test compare
