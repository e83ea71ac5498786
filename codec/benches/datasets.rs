//! rust_serialization_benchmark's four datasets (`log`, `mesh`, `minecraft_savedata`, `mk48`;
//! see `datasets/mod.rs`), each serialized, deserialized and, where the types have a borrowed
//! twin, deserialized borrowing, by hardpack (default `Limits`), rmp-serde and msgpacker in one
//! run. Serializing goes into a reused buffer (the public benchmark's measure: a 10 MB slice
//! for rmp-serde and msgpacker, a cleared `Vec` for hardpack) and into a fresh `Vec`.
//!
//! Before anything is timed, hardpack's bytes are checked to be rmp-serde's, and every decode
//! to give back the data. Users ship with LTO, as the public benchmark builds: run it in that
//! profile too,
//!
//! ```sh
//! cargo bench -p hardpack --features serde --bench datasets --profile bench-lto
//! ```

use std::fmt::Debug;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use msgpacker::{EncoderSlice, Packable, Unpackable, UnpackableBorrowed};
use serde::{Deserialize, Serialize};

#[path = "datasets/mod.rs"]
mod datasets;

const BUFFER_LEN: usize = 10_000_000;

fn benches(c: &mut Criterion) {
    let logs = datasets::log::generate();
    dataset(c, "log", &logs);
    borrow::<_, datasets::log::BorrowLogs>(c, "log", &logs);

    let mesh = datasets::mesh::generate();
    dataset(c, "mesh", &mesh);

    let players = datasets::minecraft_savedata::generate();
    dataset(c, "minecraft_savedata", &players);
    borrow::<_, datasets::minecraft_savedata::BorrowPlayers>(c, "minecraft_savedata", &players);

    let updates = datasets::mk48::generate();
    dataset(c, "mk48", &updates);
}

/// Serialize and deserialize `data` with the three libraries, after checking each gives it
/// back and that hardpack writes rmp-serde's bytes.
fn dataset<T>(c: &mut Criterion, name: &str, data: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + Packable + Unpackable + PartialEq + Debug,
    <T as Unpackable>::Error: Debug,
{
    let hardpack_bytes = hardpack::to_vec(data).unwrap();
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

    let mut group = c.benchmark_group(format!("datasets/{name}/serialize"));
    let mut out = Vec::with_capacity(BUFFER_LEN);
    group.bench_function("hardpack", |b| {
        b.iter(|| {
            out.clear();
            black_box(data)
                .serialize(&mut hardpack::ser::Serializer::new(&mut out))
                .unwrap();
            black_box(&out);
        })
    });
    let mut slice = vec![0; BUFFER_LEN];
    group.bench_function("rmp-serde", |b| {
        b.iter(|| {
            rmp_serde::encode::write(&mut black_box(slice.as_mut_slice()), black_box(data))
                .unwrap();
        })
    });
    let mut encoder = EncoderSlice::new(&mut slice);
    group.bench_function("msgpacker", |b| {
        b.iter(|| {
            black_box(data).pack(black_box(&mut encoder));
            encoder.reset();
        })
    });
    group.finish();

    let mut group = c.benchmark_group(format!("datasets/{name}/serialize-fresh"));
    group.bench_function("hardpack", |b| {
        b.iter(|| hardpack::to_vec(black_box(data)).unwrap())
    });
    group.bench_function("rmp-serde", |b| {
        b.iter(|| rmp_serde::to_vec(black_box(data)).unwrap())
    });
    group.bench_function("msgpacker", |b| b.iter(|| black_box(data).pack_to_vec()));
    group.finish();

    let mut group = c.benchmark_group(format!("datasets/{name}/deserialize"));
    group.bench_function("hardpack", |b| {
        b.iter(|| hardpack::from_slice::<T>(black_box(&hardpack_bytes)).unwrap())
    });
    group.bench_function("rmp-serde", |b| {
        b.iter(|| rmp_serde::from_slice::<T>(black_box(&rmp_bytes)).unwrap())
    });
    group.bench_function("msgpacker", |b| {
        b.iter(|| T::unpack(black_box(&msgpacker_bytes)).unwrap())
    });
    group.finish();
}

/// Deserialize `data` borrowing, as `B`, with the three libraries, after checking each gives
/// it back.
fn borrow<'a, T, B>(c: &mut Criterion, name: &str, data: &'a T)
where
    T: Serialize + Packable,
    B: Serialize + Deserialize<'a> + Packable + UnpackableBorrowed<'a> + From<&'a T>,
    B: PartialEq + Debug,
    <B as UnpackableBorrowed<'a>>::Error: Debug,
{
    let borrowed = B::from(data);
    // The encodings outlive the benchmark, so that the borrowed values may point into them.
    let bytes: &'a [u8] = Vec::leak(hardpack::to_vec(data).unwrap());
    let msgpacker_bytes: &'a [u8] = Vec::leak(data.pack_to_vec());
    assert!(hardpack::to_vec(&borrowed).unwrap() == bytes);
    assert!(borrowed.pack_to_vec() == msgpacker_bytes);
    assert!(hardpack::from_slice::<B>(bytes).unwrap() == borrowed);
    assert!(rmp_serde::from_slice::<B>(bytes).unwrap() == borrowed);
    assert!(B::unpack(msgpacker_bytes).unwrap() == borrowed);

    let mut group = c.benchmark_group(format!("datasets/{name}/borrow"));
    group.bench_function("hardpack", |b| {
        b.iter(|| hardpack::from_slice::<B>(black_box(bytes)).unwrap())
    });
    group.bench_function("rmp-serde", |b| {
        b.iter(|| rmp_serde::from_slice::<B>(black_box(bytes)).unwrap())
    });
    group.bench_function("msgpacker", |b| {
        b.iter(|| B::unpack(black_box(msgpacker_bytes)).unwrap())
    });
    group.finish();
}

criterion_group! {
    name = public_datasets;
    config = Criterion::default();
    targets = benches
}
criterion_main!(public_datasets);
