//! The codec against the reference decoder written from the specification (`model`): the
//! same value, or the same error kind, offset, depth and `needed`, for every committed seed
//! and regression payload, a few thousand deterministic mutations of them, and several limit
//! settings (the allocation budget aside: the model does not keep the codec's accounts).

use std::path::{Path, PathBuf};

use hardpack::{Decoder, ErrorKind, Limits};
use hardpack_harness::model::{self, ModelError};
use hardpack_harness::targets::limits_from_input;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_none_or(|e| e != "toml") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn as_model(e: &hardpack::Error) -> ModelError {
    ModelError {
        kind: e.kind().clone(),
        offset: e.offset(),
        depth: e.depth(),
    }
}

/// The codec and the model agree on `input` under `limits` (with no budget), prefix and
/// whole. Returns a description of the disagreement, if any.
fn disagreement(input: &[u8], limits: &Limits) -> Option<String> {
    let mut limits = limits.clone();
    limits.max_alloc_bytes = usize::MAX;
    let decoder = Decoder::new(limits.clone());
    let codec = decoder.decode_prefix(input).map_err(|e| as_model(&e));
    if matches!(&codec, Err(e) if matches!(e.kind, ErrorKind::OutOfMemory { .. })) {
        return None;
    }
    let model = model::decode_prefix(input, &limits);
    if codec != model {
        return Some(format!("decode_prefix: codec {codec:?}, model {model:?}"));
    }
    let codec = decoder.decode(input).map_err(|e| as_model(&e));
    let model = model::decode(input, &limits);
    (codec != model).then(|| format!("decode: codec {codec:?}, model {model:?}"))
}

/// A deterministic xorshift stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A few small edits of `seed`: a byte changed, a marker or length byte put in, a cut.
fn mutants(seed: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    const INTERESTING: [u8; 16] = [
        0x00, 0x01, 0x7f, 0x80, 0x90, 0x91, 0xa1, 0xc1, 0xc4, 0xd4, 0xd6, 0xd9, 0xdc, 0xdd, 0xff,
        0xc7,
    ];
    let mut out = Vec::new();
    for _ in 0..6 {
        let mut m = seed.to_vec();
        match rng.below(4) {
            0 if !m.is_empty() => {
                let at = rng.below(m.len());
                m[at] = rng.next() as u8;
            }
            1 => {
                let at = rng.below(m.len() + 1);
                m.insert(at, INTERESTING[rng.below(INTERESTING.len())]);
            }
            2 => m.truncate(rng.below(m.len() + 1)),
            _ => {
                let at = rng.below(m.len() + 1);
                let byte = INTERESTING[rng.below(INTERESTING.len())];
                m.splice(at..at, [byte, 0xff, 0xff]);
            }
        }
        out.push(m);
    }
    out
}

#[test]
fn the_codec_gives_the_specifications_verdict_on_every_seed_and_mutant() {
    // Deep regression payloads recurse in the model: a thread with room for them.
    let worker = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(|| {
            let root = root();
            let tiny = Limits::default()
                .with(hardpack::Limit::Depth, 3)
                .with(hardpack::Limit::ArrayLen, 3)
                .with(hardpack::Limit::MapLen, 3)
                .with(hardpack::Limit::StrLen, 3)
                .with(hardpack::Limit::BinLen, 3)
                .with(hardpack::Limit::ExtLen, 3);
            let settings = [Limits::default(), Limits::unlimited(), tiny];
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut checked = 0usize;
            let mut failures = Vec::new();
            let mut check = |name: &str, input: &[u8], limits: &Limits| {
                checked += 1;
                if let Some(why) = disagreement(input, limits) {
                    failures.push(format!("{name} ({} bytes): {why}", input.len()));
                }
            };
            for dir in [
                "corpus/decode",
                "corpus/differential_rmpv",
                "regression/cases",
            ] {
                for path in files(&root.join(dir)) {
                    let input = std::fs::read(&path).unwrap();
                    let name = path.display().to_string();
                    for limits in &settings {
                        check(&name, &input, limits);
                    }
                    if input.len() <= 4096 {
                        for m in mutants(&input, &mut rng) {
                            for limits in &settings {
                                check(&format!("{name}, mutated"), &m, limits);
                            }
                        }
                    }
                }
            }
            // The limit-choosing targets' seeds, under the limits their headers choose.
            for dir in ["corpus/decode_limits", "corpus/validate_agrees"] {
                for path in files(&root.join(dir)) {
                    let data = std::fs::read(&path).unwrap();
                    let (limits, payload) = limits_from_input(&data);
                    check(&path.display().to_string(), payload, &limits);
                }
            }
            (checked, failures)
        })
        .unwrap();
    let (checked, failures) = worker.join().unwrap();
    assert!(checked > 5_000, "only {checked} inputs checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} disagree with the model:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
