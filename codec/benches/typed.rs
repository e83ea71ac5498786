//! Typed encoding and decoding through serde against rmp-serde, and against msgpacker's derived
//! `Packable`/`Unpackable`, on the same values in one run, three workloads:
//! - 10,000 events of a dozen fields (ints, floats, short strs, a tag list, an optional str, a
//!   bin), one document each, structs written as arrays (hardpack's and rmp-serde's default)
//!   and as maps;
//! - 100,000 tiny messages (a struct of three small fields), one document each: the fixed
//!   cost of a decode;
//! - one document holding an array of 100,000 numeric structs (floats and ints);
//! - one document holding 1,000 records of 15 fields (`Option`s, strs, numbers) each with
//!   40,000 small integers, as a sequence (`Vec<u8>`) and as a bin (`serde_bytes`), beside a
//!   copy of the same bytes;
//! - the 10,000 events with their structs written as maps (string keys);
//! - one `Vec<i64>` and one `Vec<f64>` of 1,000,000 elements.
//!
//! msgpacker writes a struct's fields one after the other with no array header: each library
//! decodes its own encoding.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde::{Deserialize, Serialize};

#[path = "datasets/mod.rs"]
mod datasets;

#[derive(Serialize, Deserialize, msgpacker::MsgPacker)]
struct Event {
    id: u64,
    kind: String,
    user: String,
    at: u64,
    score: f64,
    ok: bool,
    tags: Vec<String>,
    x: i32,
    y: i32,
    z: i32,
    source: Option<String>,
    #[serde(with = "serde_bytes")]
    #[msgpacker(binary)]
    payload: Vec<u8>,
}

/// A tiny message: the fixed cost of a decode dominates.
#[derive(Serialize, Deserialize, msgpacker::MsgPacker)]
struct Ping {
    seq: u32,
    ok: bool,
    code: i16,
}

/// A numeric record: no strs, no allocation but the array holding it.
#[derive(Serialize, Deserialize, msgpacker::MsgPacker)]
struct Sample {
    x: f64,
    y: f64,
    z: f64,
    at: u64,
    sensor: u32,
    flags: u16,
}

/// A record of 15 fields around a run of small integers: `Vec<u8>` as serde writes it, a
/// sequence (one fixint a byte).
#[derive(Serialize, Deserialize, msgpacker::MsgPacker)]
struct Record {
    id: u64,
    name: String,
    kind: u8,
    created: u64,
    updated: Option<u64>,
    score: f64,
    ratio: f32,
    active: bool,
    owner: Option<String>,
    parent: Option<u64>,
    x: i32,
    y: i32,
    z: i32,
    label: Option<String>,
    data: Vec<u8>,
}

/// The same record with its integers as a bin.
#[derive(Serialize, Deserialize, msgpacker::MsgPacker)]
struct BlobRecord {
    id: u64,
    name: String,
    kind: u8,
    created: u64,
    updated: Option<u64>,
    score: f64,
    ratio: f32,
    active: bool,
    owner: Option<String>,
    parent: Option<u64>,
    x: i32,
    y: i32,
    z: i32,
    label: Option<String>,
    #[serde(with = "serde_bytes")]
    #[msgpacker(binary)]
    data: Vec<u8>,
}

fn records() -> Vec<Record> {
    let mut next = datasets::numbers::generator(0x0005_eed0_f4ec_04d5);
    (0..1_000u64)
        .map(|i| Record {
            id: i,
            name: format!("record-{}", next() % 100_000),
            kind: (next() % 8) as u8,
            created: 1_700_000_000 + next() % 10_000_000,
            updated: (next() % 2 == 0).then(|| 1_710_000_000 + next() % 1_000_000),
            score: (next() % 100_000) as f64 / 7.0,
            ratio: (next() % 1000) as f32 / 1000.0,
            active: next() % 3 != 0,
            owner: (next() % 3 == 0).then(|| format!("owner-{}", next() % 1000)),
            parent: (next() % 4 == 0).then(|| next() % 1_000),
            x: (next() % 2000) as i32 - 1000,
            y: (next() % 70_000) as i32 - 35_000,
            z: next() as i32,
            label: (next() % 5 == 0).then(|| "archived".to_string()),
            data: (0..40_000).map(|_| (next() % 128) as u8).collect(),
        })
        .collect()
}

fn blob_records(records: &[Record]) -> Vec<BlobRecord> {
    records
        .iter()
        .map(|r| BlobRecord {
            id: r.id,
            name: r.name.clone(),
            kind: r.kind,
            created: r.created,
            updated: r.updated,
            score: r.score,
            ratio: r.ratio,
            active: r.active,
            owner: r.owner.clone(),
            parent: r.parent,
            x: r.x,
            y: r.y,
            z: r.z,
            label: r.label.clone(),
            data: r.data.clone(),
        })
        .collect()
}

fn pings() -> Vec<Ping> {
    (0..100_000u32)
        .map(|i| Ping {
            seq: i.wrapping_mul(2_654_435_761),
            ok: i % 3 != 0,
            code: (i % 600) as i16 - 300,
        })
        .collect()
}

fn samples() -> Vec<Sample> {
    (0..100_000u32)
        .map(|i| Sample {
            x: f64::from(i) * 0.5,
            y: f64::from(i % 977) / 7.0,
            z: -f64::from(i % 13),
            at: 1_700_000_000_000 + u64::from(i) * 250,
            sensor: i % 4096,
            flags: (i % 65_536) as u16,
        })
        .collect()
}

fn events() -> Vec<Event> {
    let mut next = datasets::numbers::generator(0x9e37_79b9_7f4a_7c15);
    (0..10_000)
        .map(|i| Event {
            id: i,
            kind: ["click", "view", "purchase", "login"][(next() % 4) as usize].to_string(),
            user: format!("user-{}", next() % 100_000),
            at: 1_700_000_000_000 + next() % 1_000_000_000,
            score: (next() % 10_000) as f64 / 100.0,
            ok: next() % 2 == 0,
            tags: (0..next() % 4).map(|t| format!("tag{t}")).collect(),
            x: (next() % 2000) as i32 - 1000,
            y: (next() % 70_000) as i32 - 35_000,
            z: next() as i32,
            source: (next() % 3 == 0).then(|| "mobile".to_string()),
            payload: (0..next() % 64).map(|b| b as u8).collect(),
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let events = events();
    let size = hardpack::to_vec(&events).unwrap().len();
    let mut group = c.benchmark_group(format!("typed encode, 10,000 events ({size} bytes)"));
    group.bench_function("hardpack Serializer", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(size),
            |out| {
                for e in &events {
                    e.serialize(&mut hardpack::ser::Serializer::new(out))
                        .unwrap();
                }
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("rmp-serde encode::write", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(size),
            |out| {
                for e in &events {
                    rmp_serde::encode::write(out, e).unwrap();
                }
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("hardpack Serializer, structs as maps", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(2 * size),
            |out| {
                for e in &events {
                    e.serialize(&mut hardpack::ser::Serializer::new(out).with_struct_map())
                        .unwrap();
                }
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("msgpacker pack (derived, no struct header)", |b| {
        use msgpacker::Packable as _;
        b.iter_batched_ref(
            || Vec::with_capacity(size),
            |out| {
                for e in &events {
                    e.pack(out);
                }
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("rmp-serde encode::write_named", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(2 * size),
            |out| {
                for e in &events {
                    rmp_serde::encode::write_named(out, e).unwrap();
                }
                black_box(out.len())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();

    let encoded: Vec<Vec<u8>> = events
        .iter()
        .map(|e| hardpack::to_vec(e).unwrap())
        .collect();
    let limited = hardpack::Decoder::new(hardpack::Limits::default());
    let unlimited = hardpack::Decoder::new(hardpack::Limits::unlimited());
    let mut group = c.benchmark_group(format!("typed decode, 10,000 events ({size} bytes)"));
    group.bench_function("hardpack from_slice, default Limits", |b| {
        b.iter(|| {
            for d in &encoded {
                black_box(limited.from_slice::<Event>(d).unwrap());
            }
        })
    });
    group.bench_function("hardpack from_slice, unlimited", |b| {
        b.iter(|| {
            for d in &encoded {
                black_box(unlimited.from_slice::<Event>(d).unwrap());
            }
        })
    });
    group.bench_function("rmp-serde from_slice", |b| {
        b.iter(|| {
            for d in &encoded {
                black_box(rmp_serde::from_slice::<Event>(d).unwrap());
            }
        })
    });
    let packed: Vec<Vec<u8>> = events
        .iter()
        .map(msgpacker::Packable::pack_to_vec)
        .collect();
    group.bench_function("msgpacker unpack (derived)", |b| {
        use msgpacker::Unpackable as _;
        b.iter(|| {
            for d in &packed {
                black_box(Event::unpack(d).unwrap());
            }
        })
    });
    let strict = hardpack::Decoder::new(hardpack::Limits::default()).strict();
    group.bench_function("hardpack from_slice, strict", |b| {
        b.iter(|| {
            for d in &encoded {
                black_box(strict.from_slice::<Event>(d).unwrap());
            }
        })
    });
    group.finish();

    // The same events with string keys.
    let named: Vec<Vec<u8>> = events
        .iter()
        .map(|e| rmp_serde::to_vec_named(e).unwrap())
        .collect();
    let named_size: usize = named.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group(format!(
        "typed decode, 10,000 events with string keys ({named_size} bytes)"
    ));
    group.bench_function("hardpack from_slice, default Limits", |b| {
        b.iter(|| {
            for d in &named {
                black_box(limited.from_slice::<Event>(d).unwrap());
            }
        })
    });
    group.bench_function("rmp-serde from_slice", |b| {
        b.iter(|| {
            for d in &named {
                black_box(rmp_serde::from_slice::<Event>(d).unwrap());
            }
        })
    });
    group.finish();

    tiny_messages(c, &limited, &unlimited);
    numeric_structs(c, &limited, &unlimited);
    record_arrays(c, &limited);
    number_vectors(c, &limited);
}

/// Encodes `value` with each library and decodes each one's bytes, in one group, beside a copy
/// of hardpack's bytes when `copy` says so.
fn one_document<T>(
    c: &mut Criterion,
    name: &str,
    value: &T,
    limited: &hardpack::Decoder,
    copy: bool,
) where
    T: Serialize + for<'de> Deserialize<'de> + msgpacker::Packable + msgpacker::Unpackable,
    <T as msgpacker::Unpackable>::Error: std::fmt::Debug,
{
    let ours = hardpack::to_vec(value).unwrap();
    assert_eq!(
        ours,
        rmp_serde::to_vec(value).unwrap(),
        "the same wire format"
    );
    let packed = msgpacker::Packable::pack_to_vec(value);
    let mut group = c.benchmark_group(format!("typed, {name} ({} bytes)", ours.len()));
    let mut out = Vec::with_capacity(2 * ours.len());
    group.bench_function("encode: hardpack to_vec", |b| {
        b.iter(|| black_box(hardpack::to_vec(value).unwrap()))
    });
    group.bench_function("encode: rmp-serde to_vec", |b| {
        b.iter(|| black_box(rmp_serde::to_vec(value).unwrap()))
    });
    group.bench_function("encode: msgpacker pack", |b| {
        b.iter(|| {
            out.clear();
            msgpacker::Packable::pack(value, &mut out);
            black_box(&out);
        })
    });
    if copy {
        let mut copied = vec![0u8; ours.len()];
        group.bench_function("memcpy of hardpack's bytes", |b| {
            b.iter(|| {
                copied.copy_from_slice(black_box(&ours));
                black_box(&copied);
            })
        });
    }
    group.bench_function("decode: hardpack from_slice, default Limits", |b| {
        b.iter(|| black_box(limited.from_slice::<T>(&ours).unwrap()))
    });
    group.bench_function("decode: rmp-serde from_slice", |b| {
        b.iter(|| black_box(rmp_serde::from_slice::<T>(&ours).unwrap()))
    });
    group.bench_function("decode: msgpacker unpack (derived)", |b| {
        b.iter(|| black_box(<T as msgpacker::Unpackable>::unpack(&packed).unwrap()))
    });
    group.finish();
}

/// 1,000 records of 15 fields and 40,000 small integers each: as sequences, then as bins.
fn record_arrays(c: &mut Criterion, limited: &hardpack::Decoder) {
    let records = records();
    one_document(
        c,
        "1,000 records, integers as a sequence",
        &records,
        limited,
        true,
    );
    let blobs = blob_records(&records);
    drop(records);
    one_document(c, "1,000 records, integers as a bin", &blobs, limited, true);
}

/// A million integers of every width, and a million floats.
fn number_vectors(c: &mut Criterion, limited: &hardpack::Decoder) {
    let ints = datasets::numbers::ints();
    one_document(c, "a Vec<i64> of 1,000,000", &ints, limited, false);
    let floats = datasets::numbers::floats();
    one_document(c, "a Vec<f64> of 1,000,000", &floats, limited, false);
}

/// 100,000 tiny messages, each its own document.
fn tiny_messages(c: &mut Criterion, limited: &hardpack::Decoder, unlimited: &hardpack::Decoder) {
    let pings = pings();
    let ours: Vec<Vec<u8>> = pings.iter().map(|p| hardpack::to_vec(p).unwrap()).collect();
    let theirs: Vec<Vec<u8>> = pings
        .iter()
        .map(|p| rmp_serde::to_vec(p).unwrap())
        .collect();
    assert_eq!(ours, theirs, "the same wire format");
    let packed: Vec<Vec<u8>> = pings.iter().map(msgpacker::Packable::pack_to_vec).collect();
    let mut group = c.benchmark_group("typed, 100,000 tiny messages");
    let mut out = Vec::with_capacity(64);
    group.bench_function("encode: hardpack to_writer", |b| {
        b.iter(|| {
            for p in &pings {
                out.clear();
                hardpack::ser::to_writer(&mut out, p).unwrap();
                black_box(&out);
            }
        })
    });
    group.bench_function(
        "encode: hardpack Serializer::new (appends to the Vec)",
        |b| {
            b.iter(|| {
                for p in &pings {
                    out.clear();
                    p.serialize(&mut hardpack::ser::Serializer::new(&mut out))
                        .unwrap();
                    black_box(&out);
                }
            })
        },
    );
    group.bench_function("encode: rmp-serde encode::write", |b| {
        b.iter(|| {
            for p in &pings {
                out.clear();
                rmp_serde::encode::write(&mut out, p).unwrap();
                black_box(&out);
            }
        })
    });
    group.bench_function("encode: msgpacker pack", |b| {
        b.iter(|| {
            for p in &pings {
                out.clear();
                msgpacker::Packable::pack(p, &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("decode: hardpack from_slice, default Limits", |b| {
        b.iter(|| {
            for d in &ours {
                black_box(limited.from_slice::<Ping>(d).unwrap());
            }
        })
    });
    group.bench_function("decode: hardpack from_slice, unlimited", |b| {
        b.iter(|| {
            for d in &ours {
                black_box(unlimited.from_slice::<Ping>(d).unwrap());
            }
        })
    });
    group.bench_function("decode: rmp-serde from_slice", |b| {
        b.iter(|| {
            for d in &ours {
                black_box(rmp_serde::from_slice::<Ping>(d).unwrap());
            }
        })
    });
    group.bench_function("decode: msgpacker unpack (derived)", |b| {
        use msgpacker::Unpackable as _;
        b.iter(|| {
            for d in &packed {
                black_box(Ping::unpack(d).unwrap());
            }
        })
    });
    group.finish();
}

/// One document: an array of 100,000 numeric structs.
fn numeric_structs(c: &mut Criterion, limited: &hardpack::Decoder, unlimited: &hardpack::Decoder) {
    let samples = samples();
    let ours = hardpack::to_vec(&samples).unwrap();
    assert_eq!(
        ours,
        rmp_serde::to_vec(&samples).unwrap(),
        "the same wire format"
    );
    let packed = msgpacker::Packable::pack_to_vec(&samples);
    let mut group = c.benchmark_group(format!(
        "typed, an array of 100,000 numeric structs ({} bytes)",
        ours.len()
    ));
    let mut out = Vec::with_capacity(ours.len());
    group.bench_function("encode: hardpack to_writer", |b| {
        b.iter(|| {
            out.clear();
            hardpack::ser::to_writer(&mut out, &samples).unwrap();
            black_box(&out);
        })
    });
    group.bench_function(
        "encode: hardpack Serializer::new (appends to the Vec)",
        |b| {
            b.iter(|| {
                out.clear();
                samples
                    .serialize(&mut hardpack::ser::Serializer::new(&mut out))
                    .unwrap();
                black_box(&out);
            })
        },
    );
    group.bench_function("encode: rmp-serde encode::write", |b| {
        b.iter(|| {
            out.clear();
            rmp_serde::encode::write(&mut out, &samples).unwrap();
            black_box(&out);
        })
    });
    group.bench_function("encode: msgpacker pack", |b| {
        b.iter(|| {
            out.clear();
            msgpacker::Packable::pack(&samples, &mut out);
            black_box(&out);
        })
    });
    group.bench_function("decode: hardpack from_slice, default Limits", |b| {
        b.iter(|| black_box(limited.from_slice::<Vec<Sample>>(&ours).unwrap()))
    });
    group.bench_function("decode: hardpack from_slice, unlimited", |b| {
        b.iter(|| black_box(unlimited.from_slice::<Vec<Sample>>(&ours).unwrap()))
    });
    group.bench_function("decode: rmp-serde from_slice", |b| {
        b.iter(|| black_box(rmp_serde::from_slice::<Vec<Sample>>(&ours).unwrap()))
    });
    group.bench_function("decode: msgpacker unpack (derived)", |b| {
        use msgpacker::Unpackable as _;
        b.iter(|| black_box(Vec::<Sample>::unpack(&packed).unwrap()))
    });
    group.finish();
}

criterion_group! {
    name = typed;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = benches
}
criterion_main!(typed);
