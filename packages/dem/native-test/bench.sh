#!/bin/sh
# Kernel vs LAMMPS on the same settling bed (bench.cpp, in.bed), 1 and 2 threads.
# LAMMPS on 2 cores runs as 2 MPI processes (mpirun -np 2): the Debian build
# has no OPENMP package. Usage: ./bench.sh [timed steps, default 2000]
set -e
cd "$(dirname "$0")"
STEPS=${1:-2000}
make -s build/bench
DATA=build/bed.data
[ -f "$DATA" ] || ./build/bench prepare "$DATA"
rate() { sed -n 's/^particle-steps\/s: //p'; }
lammps_rate() {
  # "Loop time of T on P procs for N steps with A atoms" of the timed run.
  awk -v steps="$STEPS" '/^Loop time of/ { t = $4; n = $9; a = $12 } END { if (n == steps) printf "%.6g\n", a * n / t }'
}
OURS1=$(./build/bench run "$DATA" 1 "$STEPS" | tee /dev/stderr | rate)
OURS2=$(./build/bench run "$DATA" 2 "$STEPS" | tee /dev/stderr | rate)
LMP1=$(lmp -in in.bed -var data "$DATA" -var steps "$STEPS" -log build/lammps1.log -echo none -nocite | lammps_rate)
if command -v mpirun >/dev/null; then
  LMP2=$(mpirun --allow-run-as-root --oversubscribe -np 2 lmp -in in.bed -var data "$DATA" -var steps "$STEPS" -log build/lammps2.log -echo none -nocite | lammps_rate)
else
  LMP2=
fi
echo
echo "bed of 32768 spheres, Hookean contacts with friction 0.5, $STEPS timed steps"
printf "%-28s %14s %14s\n" "" "1 thread" "2 threads"
printf "%-28s %14.4g %14.4g\n" "kernel (particle-steps/s)" "$OURS1" "$OURS2"
printf "%-28s %14.4g %14s\n" "LAMMPS (particle-steps/s)" "$LMP1" "${LMP2:-n/a}"
awk -v a="$OURS1" -v b="$OURS2" -v c="$LMP1" -v d="$LMP2" 'BEGIN {
  printf "%-28s %14.2f %14s\n", "kernel / LAMMPS", a / c, (d > 0 ? sprintf("%.2f", b / d) : "n/a");
  printf "%-28s %14.2f %14s\n", "2-thread speed-up", b / a, (d > 0 ? sprintf("%.2f (LAMMPS)", d / c) : "n/a");
}'
