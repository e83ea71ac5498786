#!/bin/bash -eu
# Builds every libFuzzer target for ClusterFuzzLite / OSS-Fuzz and puts in $OUT, per target:
# the binary, <target>.dict, <target>.options and <target>_seed_corpus.zip.
# Reads: SRC (where the repository is, as $SRC/hardpack), OUT (where results go), and the
# OSS-Fuzz variables cargo-fuzz honours (SANITIZER, CARGO_BUILD_TARGET / RUSTFLAGS set by
# base-builder-rust). FUZZ_TARGETS (space-separated) restricts the set; default: all.
# OSS-Fuzz runs this with `bash -eux`; a plain `bash build.sh` must stop at a failure too.
set -eu
REPO="$SRC/hardpack"
cd "$REPO/fuzz"
# The [[bin]] names of fuzz/Cargo.toml: cargo test checks them against the harness's TARGETS
# (the image builds no hardpack command to ask).
TARGETS=${FUZZ_TARGETS:-$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^hardpack-fuzz$')}

# OSS-Fuzz's cargo wrapper picks the sanitizer from $SANITIZER; locally cargo-fuzz defaults to
# ASan. Debug assertions stay on (as in regex's oss-fuzz build): a broken internal invariant
# crashes the fuzzer instead of returning a plausible value.
# cargo fuzz build takes one target, or none for all of them.
if [ -z "${FUZZ_TARGETS:-}" ]; then
  cargo fuzz build -O --debug-assertions
else
  for target in $TARGETS; do cargo fuzz build -O --debug-assertions "$target"; done
fi

TRIPLE=${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
BUILD_DIR="$REPO/fuzz/target/$TRIPLE/release"
for target in $TARGETS; do
  # As scripts/fuzz-lib.sh's max_len_for: twice the largest generated seed, at least 4 KiB.
  largest=$(find "$REPO/corpus/$target" -maxdepth 1 -type f -printf '%s\n' | sort -n | tail -1)
  max_len=$(( ${largest:-0} * 2 ))
  [ "$max_len" -ge 4096 ] || max_len=4096
  cp "$BUILD_DIR/$target" "$OUT/$target"
  cp "$REPO/corpus/msgpack.dict" "$OUT/$target.dict"
  cat > "$OUT/$target.options" <<OPTIONS
[libfuzzer]
dict = $target.dict
max_len = $max_len
rss_limit_mb = 2048
malloc_limit_mb = 128
timeout = 10
OPTIONS
  # The committed seeds, and locally what the nightly job keeps in its store (fuzz/store).
  store="${HARDPACK_CORPUS_STORE:-$REPO/fuzz/store}/corpus/$target"
  (cd "$REPO" && find "corpus/$target" $( [ -d "$store" ] && echo "$store" ) -type f | sort | python3 -c '
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name in sys.stdin.read().split():
        z.write(name, name.replace("/", "_"))
' "$OUT/${target}_seed_corpus.zip")
done
echo "build.sh: $(echo $TARGETS | wc -w) targets in $OUT"
