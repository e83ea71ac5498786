//! Typed encoding and decoding through serde against rmp-serde, and against msgpacker's derived
//! `Packable`/`Unpackable`, on the same values in one run, three workloads:
//! - 10,000 events of a dozen fields (ints, floats, short strs, a tag list, an optional str, a
//!   bin), one document each, structs written as arrays (hardpack's and rmp-serde's default)
//!   and as maps;
//! - 100,000 tiny messages (a struct of three small fields), one document each: the fixed
//!   cost of a decode;
//! - one document holding an array of 100,000 numeric structs (floats and ints).
//!
//! msgpacker writes a struct's fields one after the other with no array header: each library
//! decodes its own encoding.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde::{Deserialize, Serialize};

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
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
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

    tiny_messages(c, &limited, &unlimited);
    numeric_structs(c, &limited, &unlimited);
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
