#!/usr/bin/env bash
# Installs the Debian packages the tests need (reference tools, sanitizer
# runtimes), once: nothing has to be installed by hand. Needs root (or sudo)
# when something is missing; does nothing when all are present.
#
#   bash scripts/system-deps.sh               everything the tests need
#   bash scripts/system-deps.sh PKG [PKG...]  only these (a build or a bench)
set -euo pipefail

if [ $# -gt 0 ]; then
  packages=("$@")
else
  packages=(g++ make python3 binutils)
  # voro's side-by-side tests build against voro++.
  [ -d "$(dirname "$0")/../packages/voro/native-test" ] && packages+=(voro++-dev)
  # WebGPU tests run Dawn on Mesa's software OpenGL ES when there is no GPU.
  packages+=(libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri)
  # The exit matrix runs a subset under valgrind memcheck.
  packages+=(valgrind)
  # @peclet/mpi is built against the system MPI and tested under mpirun.
  packages+=(openmpi-bin libopenmpi-dev)
  # The picture tests render every SVG the apps and the CLI write with a second renderer.
  packages+=(librsvg2-bin fonts-dejavu-core)
  # The exit matrix's notebook column drives Deno's Jupyter kernel through jupyter_client.
  packages+=(python3-jupyter-client)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "system-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null; then
  SUDO=(sudo)
else
    echo "system-deps: ${missing[*]} missing and not root; install them with apt-get" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
