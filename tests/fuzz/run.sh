#!/bin/sh
# Runs the libFuzzer targets built by `make fuzz-bin` (build-fuzz/fuzz_<t>).
#   tests/fuzz/run.sh SECONDS TARGET...
# FUZZ_RUNS=N (optional) also stops each target after N executions.
# Each target reads its committed seeds from tests/fuzz/corpus/<t>/ and keeps
# what it finds in build-fuzz/corpus/<t>/ (the first, writable corpus folder);
# a crash or broken invariant is saved as tests/fuzz/crashes/<t>-crash-<sha1>
# and fails the run (exit 1).  One summary line per target: executions, corpus
# size, coverage.  Reproduce a crash with: build-fuzz/fuzz_<t> FILE
set -u
secs=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
mkdir -p "$root/tests/fuzz/crashes"
status=0
for t in "$@"; do
    case $t in
        npy|probe) maxlen=8192 ;;
        cli) maxlen=512 ;;
        csv) maxlen=600 ;;
        crossover|best|progcache) maxlen=1024 ;;
        *) maxlen=256 ;;
    esac
    dict=""
    [ -f "$root/tests/fuzz/$t.dict" ] && dict="-dict=$root/tests/fuzz/$t.dict"
    mkdir -p "$build/corpus/$t"
    log="$build/fuzz_$t.log"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build/fuzz_$t" -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len=$maxlen -timeout=10 \
        -print_final_stats=1 $dict \
        -artifact_prefix="$root/tests/fuzz/crashes/$t-" \
        "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    corpus=$(ls "$build/corpus/$t" | wc -l)
    if [ $rc -ne 0 ]; then
        echo "fuzz $t: FAILED (exit $rc) after ${runs:-?} executions; log $log:" >&2
        grep -E 'ERROR|invariant failed|SUMMARY|Test unit written|runtime error' "$log" | head -n 20 >&2
        status=1
    else
        time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
        echo "fuzz $t: ${runs:-?} executions in ${time:-$secs}s, $cov, corpus $corpus files"
    fi
done
exit $status
