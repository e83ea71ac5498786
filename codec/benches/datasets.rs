//! rust_serialization_benchmark's four datasets (`log`, `mesh`, `minecraft_savedata`, `mk48`;
//! see `datasets/mod.rs`) and two numeric arrays, each serialized, deserialized and, where the
//! types have a borrowed twin, deserialized borrowing, by hardpack (default `Limits`) on both
//! its paths (`#[derive(Encode, Decode)]`, and serde), rmp-serde and msgpacker in one run. Serializing goes into a reused buffer (the public
//! benchmark's measure: a 10 MB slice for rmp-serde and msgpacker, a cleared `Vec` for
//! hardpack) and into a fresh `Vec`.
//!
//! Before anything is timed, hardpack's bytes (both paths') are checked to be rmp-serde's, and
//! every decode to give back the data. Users ship with LTO, as the public benchmark builds, so run it in
//! that profile too. With `--interleaved`, instead of criterion's runs one after the other,
//! the libraries take turns (best of 3 passes of 10 rounds), which keeps the machine's drift
//! and the allocator's state out of the ratios, and a table of them is printed:
//!
//! ```sh
//! cargo bench -p hardpack-bench --bench datasets --profile bench-lto
//! cargo bench -p hardpack-bench --bench datasets --profile bench-lto -- --interleaved
//! cargo bench -p hardpack-bench --bench datasets --profile bench-lto -- --interleaved mk48/ Vec
//! ```

use std::fmt::Debug;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hardpack::derive::{Decode, Encode};
use msgpacker::{EncoderSlice, Packable, Unpackable, UnpackableBorrowed};
use serde::{Deserialize, Serialize};

#[path = "datasets/mod.rs"]
mod datasets;

const BUFFER_LEN: usize = 10_000_000;

/// One library's run of one operation on one dataset.
struct Case<'a> {
    /// `dataset/operation`.
    group: String,
    lib: &'static str,
    run: Box<dyn FnMut() + 'a>,
}

fn main() {
    let interleaved = std::env::args().any(|arg| arg == "--interleaved");
    let logs = datasets::log::generate();
    let mesh = datasets::mesh::generate();
    let players = datasets::minecraft_savedata::generate();
    let updates = datasets::mk48::generate();
    let ints = datasets::numbers::ints();
    let floats = datasets::numbers::floats();

    let mut cases = Vec::new();
    cases.extend(dataset("log", &logs));
    cases.extend(borrow::<_, datasets::log::BorrowLogs>("log", &logs));
    cases.extend(dataset("mesh", &mesh));
    cases.extend(dataset("minecraft_savedata", &players));
    cases.extend(borrow::<_, datasets::minecraft_savedata::BorrowPlayers>(
        "minecraft_savedata",
        &players,
    ));
    cases.extend(dataset("mk48", &updates));
    cases.extend(dataset("Vec<i64>", &ints));
    cases.extend(dataset("Vec<f64>", &floats));
    cases.sort_by(|a, b| a.group.cmp(&b.group));

    if interleaved {
        // Any other argument keeps the groups whose name holds it.
        let filters: Vec<String> = std::env::args()
            .skip(1)
            .filter(|arg| !arg.starts_with("--"))
            .collect();
        cases.retain(|case| filters.is_empty() || filters.iter().any(|f| case.group.contains(f)));
        if cases.is_empty() {
            eprintln!("no dataset/operation holds any of {filters:?}");
            std::process::exit(2);
        }
        race(cases);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut cases = cases.into_iter().peekable();
    while let Some(first) = cases.next() {
        let mut group = c.benchmark_group(format!("datasets/{}", first.group));
        let name = first.group.clone();
        let mut next = Some(first);
        while let Some(mut case) = next {
            group.bench_function(case.lib, |b| b.iter(&mut case.run));
            next = cases.next_if(|case| case.group == name);
        }
        group.finish();
    }
    c.final_summary();
}

/// The cases of each group run in turns: per round, each library runs as many times as
/// takes it about 50 ms; a library's time is its best round's mean. Prints a table of the
/// times and of each peer's time over hardpack's.
fn race(cases: Vec<Case>) {
    let mut groups: Vec<Vec<Case>> = Vec::new();
    for case in cases {
        match groups.last_mut() {
            Some(group) if group[0].group == case.group => group.push(case),
            _ => groups.push(vec![case]),
        }
    }
    println!(
        "| dataset/operation | hardpack derive | hardpack serde | rmp-serde | msgpacker \
         | rmp-serde / derive | msgpacker / derive | msgpacker / serde |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for mut group in groups {
        let batches: Vec<u32> = group
            .iter_mut()
            .map(|case| {
                let start = Instant::now();
                (case.run)();
                let once = start.elapsed().max(Duration::from_micros(1));
                (Duration::from_millis(50).as_nanos() / once.as_nanos()).clamp(1, 10_000) as u32
            })
            .collect();
        let mut best = vec![Duration::MAX; group.len()];
        for _pass in 0..3 {
            for _round in 0..10 {
                for ((case, &n), best) in group.iter_mut().zip(&batches).zip(&mut best) {
                    let start = Instant::now();
                    for _ in 0..n {
                        (case.run)();
                    }
                    *best = (*best).min(start.elapsed() / n);
                }
            }
        }
        let time = |lib: &str| {
            group
                .iter()
                .position(|case| case.lib == lib)
                .map(|i| best[i])
        };
        let cell = |lib| time(lib).map_or("-".to_string(), |t| format!("{t:.2?}"));
        // A peer's time over ours: above 1, ours is faster.
        let ratio = |peer, ours| match (time(peer), time(ours)) {
            (Some(peer), Some(ours)) => format!("{:.2}x", peer.as_secs_f64() / ours.as_secs_f64()),
            _ => "-".to_string(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            group[0].group,
            cell("hardpack-derive"),
            cell("hardpack"),
            cell("rmp-serde"),
            cell("msgpacker"),
            ratio("rmp-serde", "hardpack-derive"),
            ratio("msgpacker", "hardpack-derive"),
            ratio("msgpacker", "hardpack"),
        );
    }
}

/// Serializes and deserializes `data` with the three libraries (hardpack by both paths),
/// after checking each gives it back and that hardpack writes rmp-serde's bytes.
fn dataset<'a, T>(name: &str, data: &'a T) -> Vec<Case<'a>>
where
    T: Serialize + for<'de> Deserialize<'de> + Packable + Unpackable + PartialEq + Debug,
    T: Encode + for<'de> Decode<'de>,
    <T as Unpackable>::Error: Debug,
{
    let hardpack_bytes = hardpack::to_vec(data).unwrap();
    assert!(
        hardpack::derive::to_vec(data).unwrap() == hardpack_bytes,
        "{name}: the derive path's bytes differ from the serde path's"
    );
    assert!(hardpack::derive::from_slice::<T>(&hardpack_bytes).unwrap() == *data);
    let derive_bytes = hardpack_bytes.clone();
    let rmp_bytes = rmp_serde::to_vec(data).unwrap();
    assert!(
        hardpack_bytes == rmp_bytes,
        "{name}: hardpack's bytes differ from rmp-serde's"
    );
    let msgpacker_bytes = data.pack_to_vec();
    assert!(hardpack::from_slice::<T>(&hardpack_bytes).unwrap() == *data);
    assert!(rmp_serde::from_slice::<T>(&rmp_bytes).unwrap() == *data);
    assert!(T::unpack(&msgpacker_bytes).unwrap() == *data);
    eprintln!(
        "{name}: {} bytes (msgpacker, no struct headers: {})",
        hardpack_bytes.len(),
        msgpacker_bytes.len()
    );

    let case = |operation: &str, lib, run: Box<dyn FnMut() + 'a>| Case {
        group: format!("{name}/{operation}"),
        lib,
        run,
    };
    let mut out = Vec::with_capacity(BUFFER_LEN);
    let mut derive_out = Vec::with_capacity(BUFFER_LEN);
    let mut rmp_slice = vec![0; BUFFER_LEN];
    let mut msgpacker_slice = vec![0; BUFFER_LEN];
    vec![
        case(
            "serialize",
            "hardpack-derive",
            Box::new(move || {
                derive_out.clear();
                black_box(data).encode(&mut derive_out).unwrap();
                black_box(&derive_out);
            }),
        ),
        case(
            "serialize",
            "hardpack",
            Box::new(move || {
                out.clear();
                black_box(data)
                    .serialize(&mut hardpack::ser::Serializer::new(&mut out))
                    .unwrap();
                black_box(&out);
            }),
        ),
        case(
            "serialize",
            "rmp-serde",
            Box::new(move || {
                rmp_serde::encode::write(&mut black_box(rmp_slice.as_mut_slice()), black_box(data))
                    .unwrap();
            }),
        ),
        case(
            "serialize",
            "msgpacker",
            Box::new(move || {
                let mut encoder = EncoderSlice::new(&mut msgpacker_slice);
                black_box(data).pack(black_box(&mut encoder));
            }),
        ),
        case(
            "serialize-fresh",
            "hardpack-derive",
            Box::new(move || {
                drop(black_box(
                    hardpack::derive::to_vec(black_box(data)).unwrap(),
                ))
            }),
        ),
        case(
            "serialize-fresh",
            "hardpack",
            Box::new(move || drop(black_box(hardpack::to_vec(black_box(data)).unwrap()))),
        ),
        case(
            "serialize-fresh",
            "rmp-serde",
            Box::new(move || drop(black_box(rmp_serde::to_vec(black_box(data)).unwrap()))),
        ),
        case(
            "serialize-fresh",
            "msgpacker",
            Box::new(move || drop(black_box(black_box(data).pack_to_vec()))),
        ),
        case(
            "deserialize",
            "hardpack-derive",
            Box::new(move || {
                drop(black_box(
                    hardpack::derive::from_slice::<T>(black_box(&derive_bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "deserialize",
            "hardpack",
            Box::new(move || {
                drop(black_box(
                    hardpack::from_slice::<T>(black_box(&hardpack_bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "deserialize",
            "rmp-serde",
            Box::new(move || {
                drop(black_box(
                    rmp_serde::from_slice::<T>(black_box(&rmp_bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "deserialize",
            "msgpacker",
            Box::new(move || drop(black_box(T::unpack(black_box(&msgpacker_bytes)).unwrap()))),
        ),
    ]
}

/// Deserializes `data` borrowing, as `B`, with the three libraries, after checking each
/// gives it back.
fn borrow<'a, T, B>(name: &str, data: &'a T) -> Vec<Case<'a>>
where
    T: Serialize + Packable,
    B: Serialize + Deserialize<'a> + Packable + UnpackableBorrowed<'a> + From<&'a T>,
    B: Decode<'a>,
    B: PartialEq + Debug,
    <B as UnpackableBorrowed<'a>>::Error: Debug,
{
    let borrowed = B::from(data);
    // The encodings live as long as the data, so that the borrowed values may point into
    // them.
    let bytes: &'a [u8] = Vec::leak(hardpack::to_vec(data).unwrap());
    let msgpacker_bytes: &'a [u8] = Vec::leak(data.pack_to_vec());
    assert!(hardpack::to_vec(&borrowed).unwrap() == bytes);
    assert!(borrowed.pack_to_vec() == msgpacker_bytes);
    assert!(hardpack::from_slice::<B>(bytes).unwrap() == borrowed);
    assert!(hardpack::derive::from_slice::<B>(bytes).unwrap() == borrowed);
    assert!(rmp_serde::from_slice::<B>(bytes).unwrap() == borrowed);
    assert!(B::unpack(msgpacker_bytes).unwrap() == borrowed);

    let case = |lib, run: Box<dyn FnMut() + 'a>| Case {
        group: format!("{name}/borrow"),
        lib,
        run,
    };
    vec![
        case(
            "hardpack-derive",
            Box::new(move || {
                drop(black_box(
                    hardpack::derive::from_slice::<B>(black_box(bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "hardpack",
            Box::new(move || {
                drop(black_box(
                    hardpack::from_slice::<B>(black_box(bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "rmp-serde",
            Box::new(move || {
                drop(black_box(
                    rmp_serde::from_slice::<B>(black_box(bytes)).unwrap(),
                ))
            }),
        ),
        case(
            "msgpacker",
            Box::new(move || drop(black_box(B::unpack(black_box(msgpacker_bytes)).unwrap()))),
        ),
    ]
}
