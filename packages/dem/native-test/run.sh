#!/bin/sh
# Installs the reference code for the benchmark: Debian's LAMMPS (binary
# `lmp`, with the GRANULAR package) and Open MPI's `mpirun`.
set -e
apt-get update
apt-get install -y lammps
command -v lmp
command -v mpirun || echo "mpirun not found: LAMMPS will be run on one process only"
