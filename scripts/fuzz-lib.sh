# Shared by scripts/fuzz-smoke, fuzz-nightly, promote and check-cflite-build: how each engine
# is built and run. Source it; it defines functions and the settings below.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/scripts/cli-lib.sh"
DICT="$REPO/corpus/msgpack.dict"
# The longest input libFuzzer makes for a target is max_len_for's answer: twice its largest
# generated seed, at least MIN_MAX_LEN (a bomb just past the depth limit is 130 bytes; the
# 100 KB ones are regression cases, not seeds: copying them into every execution cost 9x).
MIN_MAX_LEN=4096
# Inputs merged into the store (found_dir) are at most this big.
FOUND_MAX_BYTES=16384
# The default max_alloc_bytes is 64 MiB: one allocation above 128 MiB is a bug to report.
MALLOC_LIMIT_MB=128
RSS_LIMIT_MB=2048
# AddressSanitizer settings for the libFuzzer runs, ahead of any the caller set (theirs win):
# no fake stacks for use-after-return (on by default in this LLVM; a return address cannot be
# kept in the safe Rust the codec is limited to) and no stack trace recorded per allocation
# (it only enriches a heap-error report, which safe Rust cannot cause; rerun one input with
# ASAN_OPTIONS=malloc_context_size=30 for it). Together +15-30% exec/s on decode (A/B, -seed=1).
# Not exported: afl-fuzz refuses an ASAN_OPTIONS without its own settings.
LIBFUZZER_ASAN_OPTIONS="detect_stack_use_after_return=0:malloc_context_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Any input slower than this is a failure (the decoder is linear; this is generous).
TIMEOUT_S=10
# cargo-fuzz builds for the host triple.
HOST_TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
LIBFUZZER_BIN="$REPO/fuzz/target/$HOST_TRIPLE/release"
# The structured targets (their input is an `arbitrary` description of a value, not
# MessagePack) are built a second time without comparison tracing, into their own folder:
# they walk values of thousands of items, and the tracing hooks on each comparison took 56% of
# encode_deep's time; their inputs are no lengths and markers for CMP tracing to match.
LIBFUZZER_NOCMP_BIN="$REPO/fuzz/target-nocmp/$HOST_TRIPLE/release"
# 0 runs the structured targets from the main build instead, and skips their second build (a
# whole build of the codec and its peers): scripts/fuzz-smoke's seconds show that each target
# runs, not how fast.
NOCMP_BUILD=${NOCMP_BUILD:-1}
AFL_BIN="$REPO/fuzz/afl/target/release"
AFL_MUTATOR_LIB="$REPO/fuzz/afl-mutator/target/release/libhardpack_afl_mutator.so"

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# max_len_for TARGET: twice the largest file directly in corpus/TARGET (not found/), at
# least MIN_MAX_LEN.
max_len_for() {
  local largest
  largest=$(find "$REPO/corpus/$1" -maxdepth 1 -type f -printf '%s\n' | sort -n | tail -1)
  local len=$(( ${largest:-0} * 2 ))
  [ "$len" -ge "$MIN_MAX_LEN" ] || len=$MIN_MAX_LEN
  echo "$len"
}

# load_targets: TARGETS=(every fuzz target), read from the harness through `hardpack targets`
# (the one list; fuzz/Cargo.toml and the wrappers are checked against it by cargo test).
load_targets() {
  build_cli
  mapfile -t TARGETS < <("$HARDPACK" targets)
  [ ${#TARGETS[@]} -gt 0 ] || { log "hardpack targets listed no target"; return 1; }
}

# structured_targets: the targets whose input describes a value to build (one a line).
structured_targets() {
  "$HARDPACK" targets --json \
    | python3 -c 'import json, sys; print("\n".join(t["name"] for t in json.load(sys.stdin) if t["structured"]))'
}

# is_structured TARGET: true for a target whose input describes a value to build.
is_structured() {
  [ -x "$HARDPACK" ] || build_cli
  grep -qx "$1" <<<"$(structured_targets)"
}

# libfuzzer_bin TARGET: the libFuzzer binary of TARGET (see LIBFUZZER_NOCMP_BIN).
libfuzzer_bin() {
  if [ "$NOCMP_BUILD" = 1 ] && is_structured "$1"; then
    echo "$LIBFUZZER_NOCMP_BIN/$1"
  else
    echo "$LIBFUZZER_BIN/$1"
  fi
}

# libfuzzer_coverage_flags TARGET: what libFuzzer counts as new coverage for TARGET, in every
# run and merge (so a merge keeps what a run would keep). The targets that read MessagePack
# count edges only (-use_counters=0), not how often each edge ran: with hit counts, every
# longer array or deeper nesting was a new feature, the corpus filled with ever larger
# inputs, and decode fell from 21,800 to 10,400 exec/s within two minutes; edges only, it
# keeps about 60,000 (and comparison tracing still solves lengths and markers). The price is
# the gradient towards deep nesting: a bug seen only at depth 127 took 52 s from an empty
# corpus instead of 4 (the committed bombs past each limit cover that depth from the start,
# and the AFL++ engine beside it keeps its hit-count buckets). docs/planted-bugs.md has the
# table. The structured targets, whose depth comes from their input's shape, keep hit counts.
libfuzzer_coverage_flags() {
  is_structured "$1" || echo "-use_counters=0"
}

# Fuzz builds keep debug assertions (like regex's oss-fuzz build): an internal invariant that
# breaks crashes the fuzzer instead of handing it a plausible wrong value.
build_libfuzzer() {
  log "building libFuzzer targets (cargo +nightly fuzz build -O --debug-assertions, ASan)"
  (cd "$REPO/fuzz" && CARGO_CACHE_RUSTC_INFO=0 cargo +nightly fuzz build -O --debug-assertions >/dev/null 2>"$REPO/fuzz/build-libfuzzer.log") \
    || { cat "$REPO/fuzz/build-libfuzzer.log" >&2; return 1; }
  [ "$NOCMP_BUILD" = 1 ] || return 0
  [ -x "$HARDPACK" ] || build_cli
  local t
  for t in $(structured_targets); do
    # No structured target is derive_differential: the build leaves its types out.
    (cd "$REPO/fuzz" && CARGO_CACHE_RUSTC_INFO=0 cargo +nightly fuzz build -O --debug-assertions \
      --no-trace-compares --no-default-features --target-dir "$REPO/fuzz/target-nocmp" "$t" \
      >/dev/null 2>>"$REPO/fuzz/build-libfuzzer.log") \
      || { cat "$REPO/fuzz/build-libfuzzer.log" >&2; return 1; }
  done
}

build_afl() {
  log "building AFL++ targets (cargo afl build --release, with debug assertions) and the custom mutator"
  (cd "$REPO/fuzz/afl" && cargo afl build --release >/dev/null 2>"$REPO/fuzz/build-afl.log") \
    || { cat "$REPO/fuzz/build-afl.log" >&2; return 1; }
  # The structure-aware mutator as an AFL++ custom mutator library (plain cargo: afl-fuzz
  # loads it into itself).
  (cd "$REPO/fuzz/afl-mutator" && cargo build --release >/dev/null 2>>"$REPO/fuzz/build-afl.log") \
    || { cat "$REPO/fuzz/build-afl.log" >&2; return 1; }
}

# run_libfuzzer TARGET SECONDS WORKDIR [extra libFuzzer flags...]
# Fuzzes into WORKDIR/corpus (seeded from corpus/TARGET, which it never writes), artifacts
# into WORKDIR/artifacts. Prints "execs exec_per_sec corpus_files new_features" on stdout.
run_libfuzzer() {
  local t=$1 secs=$2 work=$3; shift 3
  mkdir -p "$work/corpus" "$work/artifacts"
  local before; before=$(ls "$work/corpus" | wc -l)
  local corpora=("$REPO/corpus/$t") coverage_flags
  read -ra coverage_flags < <(libfuzzer_coverage_flags "$t") || true
  # corpus/TARGET holds its committed found/ (libFuzzer reads it recursively), then the store.
  [ -d "$(found_dir "$t")" ] && corpora+=("$(found_dir "$t")")
  set +e
  ASAN_OPTIONS="$LIBFUZZER_ASAN_OPTIONS" "$(libfuzzer_bin "$t")" -dict="$DICT" -max_len="$(max_len_for "$t")" -rss_limit_mb=$RSS_LIMIT_MB \
    -malloc_limit_mb=$MALLOC_LIMIT_MB -timeout=$TIMEOUT_S -max_total_time="$secs" "${coverage_flags[@]}" \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@" \
    "$work/corpus" "${corpora[@]}" >"$work/libfuzzer.log" 2>&1
  local rc=$?
  set -e
  local execs rate cov
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/libfuzzer.log" | grep -o '[0-9]*$' | tail -1 || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/libfuzzer.log" | grep -o '[0-9]*$' | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$work/libfuzzer.log" | tail -1 | grep -o '[0-9]*' || true)
  # -fork=N prints no final stats: take the last progress line ("#N ... exec/s: R").
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$work/libfuzzer.log" | tail -1 | tr -d '#' || true)
  [ -n "$rate" ] || rate=$(grep -oE 'exec/s: [0-9]+' "$work/libfuzzer.log" | tail -1 | grep -oE '[0-9]+' || true)
  echo "${execs:-0} ${rate:-0} $(ls "$work/corpus" | wc -l) ${cov:-0} $rc $before"
}

# afl_fuzz TARGET AFL-FLAGS...: afl-fuzz on TARGET with the settings every AFL++ run here
# shares (main instance or secondary): the dictionary, the timeout, the structure-aware custom
# mutator, seeds that crash skipped rather than fatal.
afl_fuzz() {
  local t=$1; shift
  AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_QUIET=1 \
  AFL_NO_AFFINITY=1 AFL_IGNORE_SEED_PROBLEMS=1 \
  AFL_CUSTOM_MUTATOR_LIBRARY="$AFL_MUTATOR_LIB" HARDPACK_TARGET="$t" \
    cargo afl fuzz "$@" -x "$DICT" -t $((TIMEOUT_S * 1000)) -m none "$AFL_BIN/$t"
}

# run_afl TARGET SECONDS WORKDIR: seeds are corpus/TARGET files up to 64 KB (AFL calibrates
# every seed; the 100 KB bombs only slow it). Prints "execs exec_per_sec corpus_files".
run_afl() {
  local t=$1 secs=$2 work=$3
  rm -rf "$work/afl-in" "$work/afl-out"
  mkdir -p "$work/afl-in"
  find "$REPO/corpus/$t" -type f -size -64k -exec cp {} "$work/afl-in/" \;
  [ -d "$(found_dir "$t")" ] && find "$(found_dir "$t")" -type f -size -64k -exec cp {} "$work/afl-in/" \;
  [ -d "$work/corpus" ] && find "$work/corpus" -type f -size -64k -exec cp {} "$work/afl-in/" \; 2>/dev/null
  set +e
  afl_fuzz "$t" -i "$work/afl-in" -o "$work/afl-out" -V "$secs" >"$work/afl.log" 2>&1
  local rc=$?
  set -e
  local stats="$work/afl-out/default/fuzzer_stats" execs=0 rate=0 items=0
  if [ -f "$stats" ]; then
    execs=$(awk -F: '/^execs_done/ {gsub(/ /,"",$2); print $2}' "$stats")
    rate=$(awk -F: '/^execs_per_sec/ {gsub(/ /,"",$2); print $2}' "$stats")
    items=$(awk -F: '/^corpus_count/ {gsub(/ /,"",$2); print $2}' "$stats")
  fi
  echo "$execs $rate $items $rc"
}

# Files AFL saved as crashes or hangs (its -V exits 0 even when it saved some).
afl_findings() {
  find "$1/afl-out/default/crashes" "$1/afl-out/default/hangs" -type f ! -name README.txt 2>/dev/null
}

# merge_found TARGET DIR...: adds to the store (found_dir) the inputs from DIR... that reach
# coverage the committed corpus (corpus/TARGET with its found/) and the store do not
# (libFuzzer -merge=1 over a copy of both).
# STORE: where fuzzing keeps what it finds, outside the tracked files, so the main job leaves
# the checkout clean: fuzz/store by default, or HARDPACK_CORPUS_STORE, a checkout of a
# ClusterFuzzLite storage repository. Either way its layout is that repository's,
# STORE/corpus/TARGET. scripts/update-seeds moves finds into the committed corpus on purpose.
STORE=${HARDPACK_CORPUS_STORE:-$REPO/fuzz/store}
found_dir() {
  echo "$STORE/corpus/$1"
}

# minimize_found TARGET [DIR]: keeps only the inputs of DIR (default: the store's) that reach
# coverage the base does not, nor the other kept inputs: a libFuzzer set-cover merge of DIR
# into a copy of the base. The base is the committed corpus of TARGET (its generated seeds and
# committed finds) for the store; the generated seeds alone for corpus/TARGET/found itself.
# Prints "before after".
minimize_found() {
  local t=$1 found=${2:-} tmp f coverage_flags depth=()
  [ -n "$found" ] || found=$(found_dir "$t")
  [ -d "$found" ] || { echo "0 0"; return 0; }
  [ "$found" = "$REPO/corpus/$t/found" ] && depth=(-maxdepth 1)
  read -ra coverage_flags < <(libfuzzer_coverage_flags "$t") || true
  local before; before=$(find "$found" -type f | wc -l)
  tmp=$(mktemp -d)
  find "$REPO/corpus/$t" "${depth[@]}" -type f -exec cp {} "$tmp/" \;
  local seeds; seeds=$(mktemp); ls "$tmp" >"$seeds"
  mkdir -p "$tmp.artifacts"
  if ASAN_OPTIONS="$LIBFUZZER_ASAN_OPTIONS" "$(libfuzzer_bin "$t")" -merge=1 -rss_limit_mb=$RSS_LIMIT_MB -max_len="$(max_len_for "$t")" \
      -timeout=$TIMEOUT_S "${coverage_flags[@]}" -artifact_prefix="$tmp.artifacts/" "$tmp" "$found" >"$tmp.merge.log" 2>&1; then
    find "$found" -type f -delete
    for f in $(ls "$tmp" | grep -vxF -f "$seeds" || true); do mv "$tmp/$f" "$found/$f"; done
  else
    log "minimizing the found corpus of $t failed (see $tmp.merge.log); left as it was"
  fi
  echo "$before $(find "$found" -type f | wc -l)"
  rm -rf "$tmp" "$tmp.artifacts" "$seeds"
}

merge_found() {
  local t=$1; shift
  local found tmp coverage_flags
  found=$(found_dir "$t")
  read -ra coverage_flags < <(libfuzzer_coverage_flags "$t") || true
  tmp=$(mktemp -d)
  mkdir -p "$found"
  find "$REPO/corpus/$t" "$found" -type f -exec cp {} "$tmp/" \;
  local before; before=$(mktemp); ls "$tmp" >"$before"
  mkdir -p "$tmp.artifacts"
  ASAN_OPTIONS="$LIBFUZZER_ASAN_OPTIONS" "$(libfuzzer_bin "$t")" -merge=1 -rss_limit_mb=$RSS_LIMIT_MB -max_len="$(max_len_for "$t")" -timeout=$TIMEOUT_S \
    "${coverage_flags[@]}" -artifact_prefix="$tmp.artifacts/" "$tmp" "$@" >"$tmp.merge.log" 2>&1 \
    || log "merge for $t failed (see $tmp.merge.log)"
  # Large finds are mostly mutated bombs, which scripts/gen-corpus regenerates: keep the
  # committed corpus small.
  local f
  for f in $(ls "$tmp" | grep -vxF -f "$before" || true); do
    if [ "$(stat -c %s "$tmp/$f")" -le "$FOUND_MAX_BYTES" ]; then
      mv "$tmp/$f" "$found/$f"
    fi
  done
  rm -rf "$tmp" "$tmp.artifacts" "$before"
}
