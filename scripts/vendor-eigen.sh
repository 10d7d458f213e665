#!/usr/bin/env bash
# Refreshes packages/pnm/native/third_party/eigen from Debian's libeigen3-dev: downloads the
# package (no install, no root needed once apt's lists are there), unpacks it in a temporary
# folder and replaces Eigen/ and the copyright file. Prints the version taken.
set -euo pipefail
cd "$(dirname "$0")/.."
target=packages/pnm/native/third_party/eigen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download libeigen3-dev >/dev/null)
deb=$(ls "$work"/libeigen3-dev_*.deb)
dpkg-deb -x "$deb" "$work/root"
rm -rf "$target/Eigen"
cp -r "$work/root/usr/include/eigen3/Eigen" "$target/Eigen"
cp "$work/root/usr/share/doc/libeigen3-dev/copyright" "$target/COPYRIGHT"
echo "vendored $(basename "$deb" .deb) into $target"
