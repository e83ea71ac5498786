//! Measures the native stack one level of a recursive type costs in typed decoding (serde's
//! recursion through user code), and the largest `max_depth` that fits a 256 KiB and a
//! 2 MiB thread with a margin: `cargo run -p hardpack --features serde --example typed_stack`
//! (add `--release` for optimised code).

use std::cell::Cell;

use serde::Deserialize;

thread_local! {
    static LOWEST: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// A leaf that records how deep the stack was when it was reached.
struct Probe;

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let here = 0u8;
        let at = std::ptr::addr_of!(here) as usize;
        LOWEST.with(|l| l.set(l.get().min(at)));
        <()>::deserialize(deserializer).map(|_| Probe)
    }
}

/// The recursive shapes: a box, a vector and a map of itself, and a newtype holding an
/// `Option` of itself (levels of serde recursion that open no container).
#[derive(Deserialize)]
#[allow(dead_code)]
enum Tree {
    Leaf(Probe),
    Boxed(Box<Tree>),
    List(Vec<Tree>),
    Map(std::collections::HashMap<String, Tree>),
    Linked(Link),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Link(Option<Box<Tree>>);

/// `levels` of `variant` around a leaf: {"Boxed": {"Boxed": ... {"Leaf": nil}}}, with the
/// list and map variants' own container inside each level.
///
/// How many levels of `max_depth` one level of each variant takes: its one-entry map, the
/// list's or map's own container, and the `Link` newtype and its `Some`.
const VARIANTS: [(&str, usize); 4] = [("Boxed", 1), ("List", 2), ("Map", 2), ("Linked", 3)];

fn nested(variant: &str, levels: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..levels {
        bytes.push(0x81);
        bytes.push(0xa0 | variant.len() as u8);
        bytes.extend(variant.as_bytes());
        match variant {
            "List" => bytes.push(0x91),
            "Map" => bytes.extend([0x81, 0xa1, b'k']),
            _ => {}
        }
    }
    bytes.extend([0x81, 0xa4]);
    bytes.extend(b"Leaf");
    bytes.push(0xc0);
    bytes
}

fn main() {
    let levels = 40; // within max_depth 128 for every variant (three levels each at most)
    let decoder = hardpack::Decoder::new(hardpack::Limits::default());
    println!(
        "profile: {}",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    for (variant, depth_a_level) in VARIANTS {
        let bytes = nested(variant, levels);
        let top = 0u8;
        let top = std::ptr::addr_of!(top) as usize;
        LOWEST.with(|l| l.set(usize::MAX));
        let _: Tree = decoder.from_slice(&bytes).expect("decodes");
        let used = top.saturating_sub(LOWEST.with(Cell::get));
        let per_level = used / levels;
        let per_depth = per_level / depth_a_level;
        // Half of the thread's stack for the decode, the rest for the caller and the margin.
        let safe = |stack: usize| stack / 2 / per_depth.max(1);
        println!(
            "{variant:>6}: {per_level} bytes a level of the type, {per_depth} a level of max_depth; safe max_depth on a 256 KiB thread: {}, on 2 MiB: {}",
            safe(256 << 10),
            safe(2 << 20)
        );
    }
}
