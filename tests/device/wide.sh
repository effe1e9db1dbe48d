#!/usr/bin/env bash
# tests/device/wide.sh SIZE...: issue 40's wide stores on this machine's GPU
# (after `. tests/device/env.sh`): each variant below run --reps 5 --csv
# (store=f64, dd, df, and the fp32 render-target best's shape for the
# ratio), then OpenBLAS's cblas_dgemm and cblas_sgemm on the same size
# (build/cpugemm, tests/device/cpugemm.c, carried).  One CSV line a run.
set -u
cd "$(dirname "$0")/../.."
variants=(
    "mrt=4x2,mc=2x2,np=all,unroll=0,profile=430"
    "store=f64,profile=430,mrt=2x2,mc=1x2,np=64"
    "store=f64,profile=430,mrt=4x2,mc=1x2,np=all,fetch=texelfetch"
    "store=f64,profile=430,mrt=2x4,mc=2x1,np=256,unroll=1"
    "store=f64,profile=430,mrt=4x2,mc=1x1,np=all,fetch=texelfetch"
    "store=dd,profile=430,mrt=2x2,mc=1x1,np=64"
    "store=dd,profile=430,mrt=4x2,mc=1x1,np=all,fetch=texelfetch"
    "store=df,profile=430,mrt=2x2,mc=1x2,np=64"
    "store=df,profile=430,mrt=4x2,mc=1x2,np=all,fetch=texelfetch"
    "store=df,profile=300es,mrt=4x2,mc=1x2,np=all,fetch=texelfetch"
)
for s in "$@"; do
    for v in "${variants[@]}"; do
        ./glgemm run "$v" --size "$s" --reps 5 --csv 2>&1 | tail -1
    done
    [ -x build/cpugemm ] && build/cpugemm "$s" 5
done
