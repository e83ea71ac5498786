# Sourced by every script that runs the hardpack command: HARDPACK is where it is, and
# build_cli builds it (release).
HARDPACK="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/release/hardpack"

# The fuzz harness the command runs every surface through (each surface's decoders and the
# benchmark's datasets, monomorphised) is its longest compile: 112 s optimised, 26 s not, on
# the critical path. The test command (scripts/test) sets HARDPACK_CLI_HARNESS_OPT_LEVEL=0, as
# its release test step builds the harness: its steps check what the command does, and
# optimisation changes none of it (the release profile's wrapping arithmetic and missing
# debug assertions are kept). Nothing else sets it: a command that measures, or that a user
# runs, is built as users build it. The command scripts/test leaves in target/release is
# that unoptimised build until the next `cargo build --release` (or build_cli) rebuilds it:
# its timings in `audit` are not the shipped command's.
build_cli() {
  local config=()
  [ -z "${HARDPACK_CLI_HARNESS_OPT_LEVEL:-}" ] \
    || config=(--config "profile.release.package.hardpack-harness.opt-level=$HARDPACK_CLI_HARNESS_OPT_LEVEL")
  cargo build --release --quiet -p hardpack-cli --bin hardpack \
    --manifest-path "$(dirname "$HARDPACK")/../../Cargo.toml" "${config[@]}"
}
