//! Writes the generated types, their samples and their truth (`$OUT_DIR/generated.rs`), from
//! a seed: `HARDPACK_PROOF_SEED` (a fixed one by default), `HARDPACK_PROOF_TYPES` types
//! (300 in a release build, 6 in a debug one, by default), `HARDPACK_PROOF_SHAPES=all` for
//! the shapes the kit does not yet see through as well (enums and collections inside a
//! tagged variant's content).

mod gen;

fn main() {
    println!("cargo:rerun-if-env-changed=HARDPACK_PROOF_SEED");
    println!("cargo:rerun-if-env-changed=HARDPACK_PROOF_TYPES");
    println!("cargo:rerun-if-env-changed=HARDPACK_PROOF_SHAPES");
    println!("cargo:rerun-if-changed=gen.rs");
    let seed = std::env::var("HARDPACK_PROOF_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(gen::DEFAULT_SEED);
    // A debug build checks the first few (each check there is several times slower); a
    // release build the whole set; the nightly job more, from a new seed.
    let debug = std::env::var("PROFILE").is_ok_and(|p| p == "debug");
    let types = std::env::var("HARDPACK_PROOF_TYPES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(if debug {
            gen::DEBUG_TYPES
        } else {
            gen::DEFAULT_TYPES
        });
    // Adjacently tagged enums only on request: the kit does not yet build every variant of
    // one whose content holds more than plain values (see docs/harden-your-types.md).
    let all_shapes = std::env::var("HARDPACK_PROOF_SHAPES").is_ok_and(|s| s.trim() == "all");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out).join("generated.rs");
    std::fs::write(&path, gen::generate(seed, types, all_shapes)).expect("OUT_DIR is writable");
}
