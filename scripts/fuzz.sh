#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of user input, on the stable toolchain (docs/guide/
# hardening.md, "Fuzzing"). The Rust targets (crates/ssdtwin_fuzz: scenario, trace, fio, snapshot, nbd) run under
# AFL++ through cargo-afl; sweep files, parsed in Python, run under libFuzzer through atheris.
#
#   scripts/fuzz.sh                       1,000,000 executions per target (the campaign)
#   scripts/fuzz.sh --execs N [TARGET..]  N executions per target
#   scripts/fuzz.sh --seconds S [TARGET..] S seconds per target (CI: a minute in all)
#
# Each run starts from the target's seeds and regressions (crates/ssdtwin_fuzz/seeds/<target>,
# regressions/<target>), stops a target at its first crash or hang (over 1 s), and fails if any
# target found one, printing the input. To keep a finding: fix it, then copy the input into
# crates/ssdtwin_fuzz/regressions/<target>/ with a name that says what it was; `cargo test`
# replays it from then on. Results: target/afl/runs/<target>/ (AFL++), target/afl/runs/sweep/.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=execs
amount=1000000
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --execs) mode=execs; amount="$2"; shift 2 ;;
        --seconds) mode=seconds; amount="$2"; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        -*) echo "error: unknown option $1 (allowed: --execs N, --seconds S)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
all=(scenario trace fio snapshot nbd sweep)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for target in "${targets[@]}"; do
    case " ${all[*]} " in *" $target "*) ;; *) echo "error: unknown target $target (allowed: ${all[*]})" >&2; exit 2 ;; esac
done

fuzz_crate=crates/ssdtwin_fuzz
runs=target/afl/runs
export CARGO_TARGET_DIR=target/afl  # instrumented builds apart from the normal ones
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_NO_WARN_INSTABILITY=1

rust_targets=()
for target in "${targets[@]}"; do [ "$target" = sweep ] || rust_targets+=("$target"); done

if [ ${#rust_targets[@]} -gt 0 ]; then
    if ! cargo afl --version >/dev/null 2>&1; then
        echo "==> cargo install cargo-afl (AFL++ for Rust on the stable toolchain; once per machine)"
        cargo install cargo-afl --locked --quiet
    fi
    echo "==> cargo afl build --profile fuzz --features afl -p ssdtwin_fuzz"
    cargo afl build --quiet --profile fuzz --features afl -p ssdtwin_fuzz
fi

python="${PYTHON:-.venv/bin/python}"  # the environment with ssdtwin installed
[ -x "$python" ] || python=python3.11

found=0
summary=()
for target in "${targets[@]}"; do
    out="$runs/$target"
    rm -rf "$out"
    mkdir -p "$out/in"
    for folder in seeds regressions; do
        if [ -d "$fuzz_crate/$folder/$target" ]; then
            find "$fuzz_crate/$folder/$target" -type f ! -name README.md -exec cp {} "$out/in/" \;
        fi
    done
    if [ "$target" = sweep ]; then
        if ! "$python" -c "import atheris" 2>/dev/null; then
            echo "==> pip install atheris (libFuzzer for Python)"
            "$python" -m pip install --quiet atheris
        fi
        if [ "$mode" = execs ]; then limit=(-runs="$amount"); else limit=(-max_total_time="$amount"); fi
        echo "==> sweep: libFuzzer (atheris), ${mode} ${amount}"
        mkdir -p "$out/corpus" "$out/artifacts"
        set +e
        "$python" "$fuzz_crate/python/fuzz_sweep.py" "${limit[@]}" -timeout=1 -rss_limit_mb=1024 \
            -artifact_prefix="$out/artifacts/" -print_final_stats=1 "$out/corpus" "$out/in" >"$out/log.txt" 2>&1
        status=$?
        set -e
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log.txt" | tail -1)
        if [ "$status" -ne 0 ] || ls "$out/artifacts/" | grep -q .; then
            found=1
            echo "finding in sweep: $(ls "$out/artifacts/")" >&2
            tail -30 "$out/log.txt" >&2
        fi
        summary+=("sweep ${execs:-0} executions, findings: $(ls "$out/artifacts/" | wc -l)")
        continue
    fi
    binary="$CARGO_TARGET_DIR/fuzz/fuzz_$target"
    if [ "$target" = snapshot ]; then
        "$binary" --write-seed "$out/in/seed.snap"
    fi
    if [ "$mode" = execs ]; then limit=(-E "$amount"); else limit=(-V "$amount"); fi
    echo "==> $target: AFL++, ${mode} ${amount}"
    # -t: a hang is an execution over 1 s; -m: a finding is also an allocation beyond 1 GiB.
    # "+": a seed that times out on a loaded machine is skipped, not fatal.
    cargo afl fuzz -i "$out/in" -o "$out" -t 1000+ -m 1024 "${limit[@]}" -- "$binary" >"$out/log.txt" 2>&1 || {
        echo "error: afl-fuzz failed on $target:" >&2
        tail -20 "$out/log.txt" >&2
        exit 1
    }
    stats="$out/default/fuzzer_stats"
    execs=$(sed -n 's/^execs_done *: *//p' "$stats")
    crashes=$(sed -n 's/^saved_crashes *: *//p' "$stats")
    hangs=$(sed -n 's/^saved_hangs *: *//p' "$stats")
    summary+=("$target $execs executions, $crashes crashes, $hangs hangs")
    if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
        found=1
        echo "finding in $target: see $out/default/crashes and $out/default/hangs" >&2
    fi
done

echo
echo "fuzzing summary ($(date -u +%Y-%m-%d), ${mode} ${amount} per target):"
printf '  %s\n' "${summary[@]}"
exit $found
