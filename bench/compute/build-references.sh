#!/bin/sh
# Builds the native references of `npm run bench:compute` (docs/EXECUTION.md, "Compute:
# measured") from their public sources, serial, with g++ -O3, outside the repository:
#   NAS MG:         NPB-CPP's serial MG (https://github.com/GMAP/NPB-CPP, NPB-SER/MG), built with
#                   its own make.def (g++ -std=c++14 -O3 -mcmodel=medium)  ->  OUT/mg.S, OUT/mg.W
#                   (classes: NPB_CLASSES, default "S W"; S serves --size quick)
#   LULESH 2.0:     LLNL's sources (https://github.com/LLNL/LULESH) without MPI or OpenMP
#                   (-DUSE_MPI=0, no -fopenmp), g++ -O3                     ->  OUT/lulesh2.0
#
#   bench/compute/build-references.sh SOURCES [OUT]
#
# SOURCES holds the two checkouts as SOURCES/NPB-CPP and SOURCES/LULESH; OUT defaults to
# SOURCES/bin. The sources are copied into OUT/build first, so their trees stay clean. Then:
#   npm run bench:compute -- --npb OUT/mg.W --lulesh OUT/lulesh2.0
# A reference whose checkout is missing is skipped with a notice (the harness then skips it too).
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 SOURCES [OUT]   (SOURCES/NPB-CPP and SOURCES/LULESH: the public checkouts)" >&2
  exit 2
fi
SOURCES=$(cd "$1" && pwd)
OUT=${2:-$SOURCES/bin}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CXX=${CXX:-g++}
built=0

if [ -d "$SOURCES/NPB-CPP/NPB-SER/MG" ]; then
  rm -rf "$OUT/build/NPB-SER"
  mkdir -p "$OUT/build"
  cp -R "$SOURCES/NPB-CPP/NPB-SER" "$OUT/build/NPB-SER"
  # NPB's own build: sys/setparams writes MG/npbparams.hpp for the class, then bin/mg.<class>.
  for class in ${NPB_CLASSES:-S W}; do
    (cd "$OUT/build/NPB-SER" && mkdir -p bin && make mg CLASS="$class" CC="$CXX -std=c++14" UCC="$CXX")
    cp "$OUT/build/NPB-SER/bin/mg.$class" "$OUT/mg.$class"
    echo "built $OUT/mg.$class"
  done
  built=$((built + 1))
else
  echo "NPB-CPP skipped: no $SOURCES/NPB-CPP/NPB-SER/MG" >&2
fi

if [ -f "$SOURCES/LULESH/lulesh.cc" ]; then
  rm -rf "$OUT/build/LULESH"
  mkdir -p "$OUT/build/LULESH"
  cp "$SOURCES"/LULESH/*.cc "$SOURCES"/LULESH/*.h "$OUT/build/LULESH/"
  (cd "$OUT/build/LULESH" && for f in lulesh.cc lulesh-comm.cc lulesh-viz.cc lulesh-util.cc lulesh-init.cc; do
    "$CXX" -c -O3 -DUSE_MPI=0 -I. -o "${f%.cc}.o" "$f"
  done && "$CXX" -O3 -o lulesh2.0 lulesh.o lulesh-comm.o lulesh-viz.o lulesh-util.o lulesh-init.o -lm)
  cp "$OUT/build/LULESH/lulesh2.0" "$OUT/lulesh2.0"
  echo "built $OUT/lulesh2.0"
  built=$((built + 1))
else
  echo "LULESH skipped: no $SOURCES/LULESH/lulesh.cc" >&2
fi

[ "$built" -gt 0 ] || { echo "nothing built: expected $SOURCES/NPB-CPP and/or $SOURCES/LULESH" >&2; exit 1; }
