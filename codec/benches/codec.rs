//! Decode and encode throughput against rmpv on the same generated workload, in one run:
//! 10,000 event-like documents (maps of 10-30 string keys; short strings, ints, floats,
//! nested arrays and maps, nil, bools); rmp-serde decoding into `rmpv::Value` beside them.
//! Also the cost of `Limits::default()` against `Limits::unlimited()`, and of reading inline
//! text as `&str`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use hardpack::{encode::encode_into, Decoder, Limits, Value};

/// A small deterministic generator (xorshift64*), so every run measures the same documents.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const KEYS: [&str; 32] = [
    "id",
    "ts",
    "user",
    "session",
    "event",
    "path",
    "method",
    "status",
    "latency_ms",
    "bytes",
    "ip",
    "agent",
    "referrer",
    "country",
    "city",
    "lat",
    "lon",
    "tags",
    "flags",
    "score",
    "retry",
    "error",
    "trace_id",
    "span_id",
    "parent",
    "service",
    "host",
    "region",
    "version",
    "ok",
    "meta",
    "items",
];

fn short_string(rng: &mut Rng) -> Value {
    const WORDS: [&str; 8] = [
        "GET",
        "/api/v1/items",
        "ok",
        "eu-west-1",
        "Mozilla/5.0",
        "checkout",
        "user-1234",
        "é-ü",
    ];
    Value::from(WORDS[rng.below(WORDS.len() as u64) as usize])
}

fn leaf(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => short_string(rng),
        1 => Value::from(rng.below(1000)),
        2 => Value::from(rng.next()),
        3 => Value::from(-(rng.below(1 << 40) as i64)),
        4 => Value::F64(rng.below(1_000_000) as f64 / 7.0),
        5 => Value::Nil,
        _ => Value::Bool(rng.below(2) == 0),
    }
}

fn field(rng: &mut Rng, depth: u32) -> Value {
    match (rng.below(10), depth) {
        (0, 0) => Value::from((0..rng.below(6)).map(|_| leaf(rng)).collect::<Vec<_>>()),
        (1, 0) => Value::from(
            (0..1 + rng.below(5))
                .map(|_| {
                    (
                        Value::from(KEYS[rng.below(32) as usize]),
                        field(rng, depth + 1),
                    )
                })
                .collect::<Vec<_>>(),
        ),
        _ => leaf(rng),
    }
}

fn event(rng: &mut Rng) -> Value {
    let n = 10 + rng.below(21);
    Value::from(
        (0..n)
            .map(|i| (Value::from(KEYS[i as usize % 32]), field(rng, 0)))
            .collect::<Vec<_>>(),
    )
}

fn workload() -> (Vec<Value>, Vec<Vec<u8>>) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let values: Vec<Value> = (0..10_000).map(|_| event(&mut rng)).collect();
    let encoded = values
        .iter()
        .map(|v| hardpack::encode(v).unwrap())
        .collect();
    (values, encoded)
}

/// 2,000 records of a few fields and a 16 KiB bin.
fn blob_workload() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    (0..2_000)
        .map(|i| {
            let blob: Vec<u8> = (0..16 << 10).map(|_| rng.below(256) as u8).collect();
            let record = Value::from_iter([
                ("id", Value::from(i)),
                ("name", Value::from(format!("blob-{i}"))),
                ("data", Value::Bin(blob.into())),
            ]);
            hardpack::encode(&record).unwrap()
        })
        .collect()
}

/// The length of the value at the start of `buf`, walked with rmp's marker reader: what a
/// caller without a validator writes to skip a value (it checks no limit, no UTF-8, no room).
fn rmp_skip(mut buf: &[u8]) -> usize {
    use rmp::Marker;
    let start = buf.len();
    let be = |b: &[u8]| b.iter().fold(0usize, |n, x| n << 8 | usize::from(*x));
    let mut pending = 1usize;
    while pending > 0 {
        pending -= 1;
        let marker = rmp::decode::read_marker(&mut buf).expect("a marker");
        let (len_bytes, fixed, children) = match marker {
            Marker::FixPos(_) | Marker::FixNeg(_) | Marker::Null | Marker::True | Marker::False => {
                (0, 0, 0)
            }
            Marker::U8 | Marker::I8 => (0, 1, 0),
            Marker::U16 | Marker::I16 => (0, 2, 0),
            Marker::U32 | Marker::I32 | Marker::F32 => (0, 4, 0),
            Marker::U64 | Marker::I64 | Marker::F64 => (0, 8, 0),
            Marker::FixStr(n) => (0, usize::from(n), 0),
            Marker::Str8 | Marker::Bin8 => (1, 0, 0),
            Marker::Str16 | Marker::Bin16 => (2, 0, 0),
            Marker::Str32 | Marker::Bin32 => (4, 0, 0),
            Marker::FixArray(n) => (0, 0, usize::from(n)),
            Marker::FixMap(n) => (0, 0, 2 * usize::from(n)),
            Marker::Array16 | Marker::Map16 | Marker::Array32 | Marker::Map32 => {
                let width = if matches!(marker, Marker::Array16 | Marker::Map16) {
                    2
                } else {
                    4
                };
                let n = be(&buf[..width]);
                buf = &buf[width..];
                let per = if matches!(marker, Marker::Map16 | Marker::Map32) {
                    2
                } else {
                    1
                };
                (0, 0, n * per)
            }
            Marker::FixExt1 => (0, 2, 0),
            Marker::FixExt2 => (0, 3, 0),
            Marker::FixExt4 => (0, 5, 0),
            Marker::FixExt8 => (0, 9, 0),
            Marker::FixExt16 => (0, 17, 0),
            Marker::Ext8 => (1, 1, 0),
            Marker::Ext16 => (2, 1, 0),
            Marker::Ext32 => (4, 1, 0),
            Marker::Reserved => panic!("reserved marker"),
        };
        let body = be(&buf[..len_bytes]) + fixed;
        buf = &buf[len_bytes + body..];
        pending += children;
    }
    start - buf.len()
}

/// Every str in a document (keys and values), without recursion.
fn strs_in(value: &Value) -> Vec<&hardpack::value::Str> {
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Str(s) => found.push(s),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Map(entries) => stack.extend(entries.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    found
}

fn benches(c: &mut Criterion) {
    let (values, docs) = workload();
    let total: usize = docs.iter().map(Vec::len).sum();
    let rmpv_values: Vec<rmpv::Value> = values.iter().map(hardpack::rmpv::to_rmpv).collect();

    let mut decode = c.benchmark_group("decode");
    decode.throughput(Throughput::Bytes(total as u64));
    let default_limits = Decoder::new(Limits::default());
    let unlimited = Decoder::new(Limits::unlimited());
    decode.bench_function("hardpack default limits", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(default_limits.decode(d).unwrap());
            }
        })
    });
    decode.bench_function("hardpack unlimited", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(unlimited.decode(d).unwrap());
            }
        })
    });
    decode.bench_function("rmpv read_value", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(rmpv::decode::read_value(&mut d.as_slice()).unwrap());
            }
        })
    });
    decode.bench_function("rmp-serde into rmpv::Value", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(rmp_serde::from_slice::<rmpv::Value>(d).unwrap());
            }
        })
    });
    decode.finish();

    // Strict mode's cost: the documents of the workload it accepts (the others have a
    // non-str key or a repeated key), decoded strictly and leniently.
    let strict = Decoder::new(Limits::default()).strict();
    let canonical: Vec<&Vec<u8>> = docs.iter().filter(|d| strict.decode(d).is_ok()).collect();
    let canonical_total: usize = canonical.iter().map(|d| d.len()).sum();
    let mut strictness = c.benchmark_group(format!(
        "strict mode, the {} documents it accepts",
        canonical.len()
    ));
    strictness.throughput(Throughput::Bytes(canonical_total as u64));
    strictness.bench_function("hardpack decode, strict", |b| {
        b.iter(|| {
            for d in &canonical {
                black_box(strict.decode(d).unwrap());
            }
        })
    });
    strictness.bench_function("hardpack decode, lenient", |b| {
        b.iter(|| {
            for d in &canonical {
                black_box(default_limits.decode(d).unwrap());
            }
        })
    });
    strictness.finish();

    // Borrowed decoding: str, bin and ext payloads stay in the input. On the mixed workload
    // above and on a blob-heavy one (records carrying a 16 KiB bin each).
    let blobs = blob_workload();
    let blob_total: usize = blobs.iter().map(Vec::len).sum();
    for (name, set, bytes) in [("mixed", &docs, total), ("blobs", &blobs, blob_total)] {
        let mut borrowed = c.benchmark_group(format!("decode borrowed, {name}"));
        borrowed.throughput(Throughput::Bytes(bytes as u64));
        borrowed.bench_function("hardpack decode_ref", |b| {
            b.iter(|| {
                for d in set {
                    black_box(default_limits.decode_ref(d).unwrap());
                }
            })
        });
        borrowed.bench_function("rmpv read_value_ref", |b| {
            b.iter(|| {
                for d in set {
                    black_box(rmpv::decode::read_value_ref(&mut d.as_slice()).unwrap());
                }
            })
        });
        borrowed.bench_function("hardpack decode (owned)", |b| {
            b.iter(|| {
                for d in set {
                    black_box(default_limits.decode(d).unwrap());
                }
            })
        });
        borrowed.finish();
    }

    // Validation: the decoder's verdict with nothing built, against rmp's skip-only walk
    // (markers and lengths, no checks) and a copy of the same bytes.
    let mut check = c.benchmark_group("validate");
    check.throughput(Throughput::Bytes(total as u64));
    check.bench_function("hardpack validate", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(default_limits.validate(d).unwrap());
            }
        })
    });
    check.bench_function("rmp marker walk (skip only, no checks)", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(rmp_skip(d));
            }
        })
    });
    check.bench_function("memcpy", |b| {
        b.iter_batched_ref(
            || vec![0u8; total],
            |out| {
                let mut at = 0;
                for d in &docs {
                    out[at..at + d.len()].copy_from_slice(d);
                    at += d.len();
                }
            },
            BatchSize::LargeInput,
        )
    });
    check.finish();

    // Inline text is re-checked as UTF-8 when it is read as `&str` (see `Str`): what that
    // costs next to reading its bytes, on every str of the decoded workload.
    let decoded: Vec<Value> = docs.iter().map(|d| hardpack::decode(d).unwrap()).collect();
    let strs: Vec<&hardpack::value::Str> = decoded.iter().flat_map(strs_in).collect();
    let mut access = c.benchmark_group("str access");
    access.throughput(Throughput::Elements(strs.len() as u64));
    access.bench_function("as_bytes", |b| {
        b.iter(|| strs.iter().map(|s| s.as_bytes().len()).sum::<usize>())
    });
    access.bench_function("as_str", |b| {
        b.iter(|| strs.iter().map(|s| s.as_str().len()).sum::<usize>())
    });
    access.finish();

    // Looking up every key of a 1,000-entry map: the scan of `Map::get` against a
    // `MapIndex` built for the purpose (its building included).
    let big = Value::from_iter((0..1000).map(|i| (format!("key-{i}"), Value::from(i))));
    let big_map = big.as_map().unwrap();
    let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
    let mut lookup = c.benchmark_group("map lookup, 1,000 keys");
    lookup.throughput(Throughput::Elements(keys.len() as u64));
    lookup.bench_function("Map::get (scan)", |b| {
        b.iter(|| keys.iter().filter(|k| big_map.get(k).is_some()).count())
    });
    lookup.bench_function("Map::index then MapIndex::get", |b| {
        b.iter(|| {
            let index = big_map.index();
            keys.iter().filter(|k| index.get(k).is_some()).count()
        })
    });
    lookup.finish();

    let mut enc = c.benchmark_group("encode");
    enc.throughput(Throughput::Bytes(total as u64));
    enc.bench_function("hardpack encode_into", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(total),
            |out| {
                for v in &values {
                    encode_into(v, out).unwrap();
                }
            },
            BatchSize::LargeInput,
        )
    });
    enc.bench_function("rmpv write_value", |b| {
        b.iter_batched_ref(
            || Vec::with_capacity(total),
            |out| {
                for v in &rmpv_values {
                    rmpv::encode::write_value(out, v).unwrap();
                }
            },
            BatchSize::LargeInput,
        )
    });
    enc.finish();
}

/// The stream surface: the workload's documents back to back, three times over (about
/// 10 MB), fed to a `StreamDecoder` in 64 KiB and in 1-byte pieces, against slice decoding of
/// the same bytes value after value (hardpack's `decode_prefix`, rmpv's `read_value`).
fn stream_benches(c: &mut Criterion) {
    let (_, docs) = workload();
    let stream: Vec<u8> = docs
        .iter()
        .flatten()
        .copied()
        .cycle()
        .take(3 * docs.iter().map(Vec::len).sum::<usize>())
        .collect();
    let count = 3 * docs.len();
    let decoder = Decoder::new(Limits::default());
    let fed = |piece: usize| {
        let mut values = 0;
        let mut decoder = hardpack::StreamDecoder::new(decoder.clone());
        for chunk in stream.chunks(piece) {
            decoder.feed(chunk);
            while let Some(value) = decoder.next().unwrap() {
                black_box(value);
                values += 1;
            }
        }
        decoder.finish().unwrap();
        assert_eq!(values, count);
    };
    let mut group = c.benchmark_group(format!(
        "stream of {count} documents ({} bytes)",
        stream.len()
    ));
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.bench_function("hardpack decode_prefix, value after value (slice)", |b| {
        b.iter(|| {
            let mut rest = stream.as_slice();
            while !rest.is_empty() {
                let (value, len) = decoder.decode_prefix(rest).unwrap();
                black_box(value);
                rest = &rest[len..];
            }
        })
    });
    group.bench_function("rmpv read_value, value after value (slice)", |b| {
        b.iter(|| {
            let mut rest = stream.as_slice();
            while !rest.is_empty() {
                black_box(rmpv::decode::read_value(&mut rest).unwrap());
            }
        })
    });
    group.bench_function("hardpack StreamDecoder, 64 KiB feeds", |b| {
        b.iter(|| fed(64 << 10))
    });
    group.bench_function("hardpack StreamDecoder, 1-byte feeds", |b| {
        b.iter(|| fed(1))
    });
    group.finish();
}

criterion_group! {
    name = codec;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = benches
}
criterion_group! {
    name = stream;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(8));
    targets = stream_benches
}
criterion_main!(codec, stream);
