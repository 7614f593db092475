#!/bin/bash
# What the driver does around a kernel that never finishes (tests/probes/stuck_kernel.c): each
# step in its own process, killed after 15 s; prints how long each process took to exit.
# Run on a GPU machine with the CUDA toolkit: bash tests/probes/stuck_kernel.sh [OUTDIR]
set -u
out=${1:-/tmp}
cd "$(dirname "$0")"
nvcc -O2 -o "$out/stuck_kernel" stuck_kernel.c -lcuda || exit 1
for s in exit event stream_create alloc copy_other_stream load free_async free_sync unload retain_again release unstick reset ctx_destroy; do
    t0=$(date +%s%N)
    timeout -s KILL 15 "$out/stuck_kernel" "$s"
    rc=$?
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    if ((rc == 137)); then verdict="BLOCKED (killed at 15 s)"; else verdict="exit $rc"; fi
    printf '  => %-18s %s, process took %d ms\n\n' "$s" "$verdict" "$ms"
done
