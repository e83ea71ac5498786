//! The workload `scripts/instruction-counts` runs under callgrind: one operation a run, on
//! deterministic data (2,000 event documents, the same with string keys, 20,000 tiny
//! messages, 20,000 numeric structs, and one document of each of rust_serialization_benchmark's
//! `minecraft_savedata` and `mk48` datasets from `../datasets/mod.rs`), so that instruction
//! counts compare two revisions exactly where wall-clock time is noise.

// Copied beside this file by the script.
mod datasets;

use serde::{Deserialize, Serialize};
use std::hint::black_box;

#[derive(Serialize, Deserialize)]
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
}
#[derive(Serialize, Deserialize)]
struct Ping {
    seq: u32,
    ok: bool,
    code: i16,
}
#[derive(Serialize, Deserialize)]
struct Sample {
    x: f64,
    y: f64,
    z: f64,
    at: u64,
    sensor: u32,
    flags: u16,
}

fn main() {
    let op = std::env::args().nth(1).unwrap();
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 33
    };
    let events: Vec<Event> = (0..2000)
        .map(|i| Event {
            id: i,
            kind: format!("kind{}", next() % 7),
            user: format!("user-{}", next() % 1000),
            at: next(),
            score: next() as f64 / 7.0,
            ok: next() % 2 == 0,
            tags: (0..next() % 4).map(|t| format!("t{t}")).collect(),
            x: next() as i32,
            y: -(next() as i32),
            z: 3,
            source: if next() % 2 == 0 {
                Some("web".into())
            } else {
                None
            },
        })
        .collect();
    let event_bytes: Vec<Vec<u8>> = events
        .iter()
        .map(|e| hardpack::to_vec(e).unwrap())
        .collect();
    let keyed_bytes: Vec<Vec<u8>> = events
        .iter()
        .map(|e| hardpack::ser::to_vec_named(e).unwrap())
        .collect();
    let pings: Vec<Vec<u8>> = (0..20000u32)
        .map(|i| {
            hardpack::to_vec(&Ping {
                seq: i.wrapping_mul(2654435761),
                ok: i % 3 != 0,
                code: (i % 600) as i16 - 300,
            })
            .unwrap()
        })
        .collect();
    let samples: Vec<Sample> = (0..20000)
        .map(|i| Sample {
            x: i as f64,
            y: 0.5,
            z: -1.25,
            at: next(),
            sensor: i as u32,
            flags: 7,
        })
        .collect();
    let sample_bytes = hardpack::to_vec(&samples).unwrap();
    let players = datasets::minecraft_savedata::generate();
    let players_bytes = hardpack::to_vec(&players).unwrap();
    let updates = datasets::mk48::generate();
    let updates_bytes = hardpack::to_vec(&updates).unwrap();
    let decoder = hardpack::Decoder::default();
    match op.as_str() {
        "setup" => {}
        "minecraft_decode" => {
            black_box(
                decoder
                    .from_slice::<datasets::minecraft_savedata::Players>(&players_bytes)
                    .unwrap(),
            );
        }
        "minecraft_encode" => {
            black_box(hardpack::to_vec(&players).unwrap());
        }
        "mk48_decode" => {
            black_box(
                decoder
                    .from_slice::<datasets::mk48::Updates>(&updates_bytes)
                    .unwrap(),
            );
        }
        "mk48_encode" => {
            black_box(hardpack::to_vec(&updates).unwrap());
        }
        "decode" => {
            for b in &event_bytes {
                black_box(decoder.decode(b).unwrap());
            }
        }
        "decode_ref" => {
            for b in &event_bytes {
                black_box(decoder.decode_ref(b).unwrap());
            }
        }
        "validate" => {
            for b in &event_bytes {
                black_box(decoder.validate(b).unwrap());
            }
        }
        "typed_event" => {
            for b in &event_bytes {
                black_box(decoder.from_slice::<Event>(b).unwrap());
            }
        }
        "typed_keyed" => {
            for b in &keyed_bytes {
                black_box(decoder.from_slice::<Event>(b).unwrap());
            }
        }
        "typed_ping" => {
            for b in &pings {
                black_box(decoder.from_slice::<Ping>(b).unwrap());
            }
        }
        "typed_numeric" => {
            black_box(decoder.from_slice::<Vec<Sample>>(&sample_bytes).unwrap());
        }
        "encode_event" => {
            for e in &events {
                black_box(hardpack::to_vec(e).unwrap());
            }
        }
        "stream" => {
            let all: Vec<u8> = event_bytes.concat();
            let mut s = hardpack::StreamDecoder::new(decoder.clone());
            s.feed(&all);
            while let Some(v) = s.next().unwrap() {
                black_box(v);
            }
        }
        _ => panic!("op"),
    }
}
