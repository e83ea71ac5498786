#!/bin/bash -eu
# The ClusterFuzzLite / OSS-Fuzz build of the example's fuzz targets (hardpack-check's
# template): the lines a team puts in its own .clusterfuzzlite/build.sh for its own types.
# Reads SRC and OUT as OSS-Fuzz sets them (and CARGO_BUILD_TARGET, which base-builder-rust
# sets); scripts/check-cflite-build runs it locally.
set -eu
SERVICE="$SRC/hardpack/check/example"   # your crate: "$SRC/my-service"
TARGETS="config rpc_request event"      # the [[bin]]s of its fuzz/Cargo.toml

# The seeds: hardpack_check::write_seeds for each type (an example or a test of your crate).
SEEDS=$(mktemp -d)
(cd "$SERVICE" && cargo run -q --example write_seeds -- "$SEEDS")

cd "$SERVICE/fuzz"
cargo fuzz build -O --debug-assertions   # every target (or one, by name)
TRIPLE=${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
for target in $TARGETS; do
  cp "target/$TRIPLE/release/$target" "$OUT/$target"
  (cd "$SEEDS/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  # The seeds are at most 4 KiB (hardpack_check::MAX_SEED_BYTES): so are the inputs.
  printf '[libfuzzer]\nmax_len = 4096\nrss_limit_mb = 2048\ntimeout = 10\n' >"$OUT/$target.options"
done
rm -rf "$SEEDS"
