//! Writes the generated types, their samples and their truth (`$OUT_DIR/generated.rs`), from
//! a seed: `HARDPACK_PROOF_SEED` (a fixed one by default), `HARDPACK_PROOF_TYPES` types
//! (300 by default).

mod gen;

fn main() {
    println!("cargo:rerun-if-env-changed=HARDPACK_PROOF_SEED");
    println!("cargo:rerun-if-env-changed=HARDPACK_PROOF_TYPES");
    println!("cargo:rerun-if-changed=gen.rs");
    let seed = std::env::var("HARDPACK_PROOF_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(gen::DEFAULT_SEED);
    let types = std::env::var("HARDPACK_PROOF_TYPES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(gen::DEFAULT_TYPES);
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out).join("generated.rs");
    std::fs::write(&path, gen::generate(seed, types)).expect("OUT_DIR is writable");
}
