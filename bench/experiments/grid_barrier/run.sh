#!/usr/bin/env bash
# Runs the grid barrier experiments of README.md on a GPU machine (nvcc, sm_90), each variant in
# its own process with a 15 s limit (a hung barrier kills only itself). $1 (optional): the bench
# PTX (`cargo xtask stage-bench`), for the Rust GridBarrier kernel in the same process.
cd "$(dirname "$0")" || exit 2
nvcc -O3 -arch=sm_90 -std=c++17 -o grid_barrier grid_barrier.cu -lcuda || exit 1
one() { timeout 15 ./grid_barrier "$@" || echo "   -> grid_barrier $* exited $?"; }
one 0 132 2 1   # divergent cluster arrive: hangs
for b in 132 264 528 1056; do
  one 9 $b 0 1
  [ -n "$1" ] && one 8 $b 0 1 "$(realpath "$1")"
  for v in 2 4 5 6 7; do one $v $b 0 1; done
  for c in 1 2 4 8; do
    [ $((b % c)) -eq 0 ] || continue
    one 3 $b $c 1
    one 1 $b $c 1
  done
done
