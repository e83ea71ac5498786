//! Harden your own MessagePack types and decoders.
//!
//! hardpack proves that hardpack cannot be knocked over. This crate is the same suite for the
//! types your service decodes from untrusted input, with hardpack or with any other decoder:
//!
//! - [`generic`]: the recursion bombs, 4 GiB length claims, amplification and malformed
//!   input that hit any decoder (the seeds of hardpack's own fuzz targets);
//! - [`for_type`]: payloads shaped by your type, traced from its `Deserialize`: a maximal
//!   length claim at each collection, each recursive path nested a million deep (in a check,
//!   deep enough to overflow its decoding stack at 16 bytes a level), a bomb in an unknown
//!   field, unknown enum variants, wrong types, duplicate keys, cut documents.
//!   The tracer gets through every shape serde derives or users write (internally,
//!   adjacently and untagged enums, `flatten`, validating hand-written impls, `try_from`,
//!   borrowed fields) by searching for values each place accepts;
//! - [`for_sample`]: any valid document, yours or captured from production, attacked node by
//!   node in its place ([`mutate`]): the way in where a trace cannot go, for any decoder;
//! - [`check`]: runs them all, each in a guarded child process, and reports per payload the
//!   outcome, peak heap, allocations, time and amplification, and which places of the type
//!   some payload reached;
//! - [`fuzz_typed!`]: a fuzz target on your type for libFuzzer or AFL++, seeded by
//!   [`write_seeds`] and [`write_sample_seeds`].
//!
//! # Harden your own types
//!
//! ```no_run
//! // tests/hardened.rs
//! #[global_allocator]
//! static ALLOC: hardpack_check::CountingAlloc = hardpack_check::CountingAlloc;
//!
//! #[derive(serde::Deserialize)]
//! struct Request { id: u64, method: String, params: Vec<Request> }
//!
//! #[test]
//! fn request_is_hardened() {
//!     hardpack_check::check::<Request>().assert_hardened();
//! }
//!
//! #[test]
//! fn request_through_rmp_serde() {
//!     hardpack_check::check::<Request>()
//!         .decoder("rmp-serde", |bytes| rmp_serde::from_slice::<Request>(bytes))
//!         .assert_hardened(); // fails: a nested payload overflows rmp-serde's stack
//! }
//! # fn main() {}
//! ```
//!
//! One check per `#[test]`: each payload runs in a child process that runs the test again,
//! so a stack overflow or an abort is that payload's result and the check goes on. The
//! counting allocator must be the test binary's global allocator; without it the check fails
//! rather than report 0 bytes. For the plain case, one line declares both:
//! `hardpack_check::hardened_tests!(request: Request, event: Event);` ([`hardened_tests!`]).
//!
//! **What counts as broken** ([`Report::broken`]): a crash or abort (a stack overflow on the
//! decoding thread, 2 MiB by default; an allocation over the heap ceiling, 1 GiB by
//! default, with the size asked), a panic, a decode over the time limit (10 s by default), a
//! peak heap far above the input's size whatever the decoder (16 MiB + 1 KiB per input byte
//! by default, [`Check::amplification_limit`]), or, with hardpack as the decoder, a peak heap
//! over the documented bound for its limits (2 × `max_alloc_bytes` + 1 MiB per collection
//! open at once, [`fuzz::heap_bound`]).
//!
//! **What counts as tested**: one ledger ([`Report::ledger`], [`ledger`]). Every request the
//! type's `Deserialize` makes in any run of the trace is a line (each field, element, map key
//! and value, option and newtype inside, every enum with every variant serde lists, every
//! `deserialize_any`), and every valid document (a sample given, or one the check wrote) adds
//! the lines it passes through. A line is closed when a value went through it and the decoder
//! checked got there; otherwise it is open, with its reason ([`Open`]): refused every value
//! tried, never built, opaque (`serde_json::Value`, `IgnoredAny`, a catch-all: only a sample
//! shows what it holds), seen in part (an untagged enum), never reached under the decoder, or
//! only inside a sample the decoder refused. The check is hardened when no line is open and
//! nothing broke; [`Report::untested`] and the reports render the open lines. A sample closes
//! only the lines it passes through. `check/proof` in hardpack's repository proves the rule on
//! generated types whose truth the generator knows.
//!
//! The check traces the type and writes every payload once, in the parent process; each
//! child (one a core, [`Check::jobs`]) is fed its share through its standard input. On Linux
//! the child forks a worker to decode them and outlives the worker's deaths, so a stack
//! overflow costs a fork: a check whose 11,233 payloads of 11,240 overflow rmp-serde's stack
//! takes 8 s in a debug build, two child processes in all ([`Report::processes`]); elsewhere,
//! or beside threads of the program's own, a death costs a process start. [`Report::elapsed`] says how long a check took. The
//! children run on Linux, macOS and Windows (where a stack
//! overflow is read from the exit status `0xC00000FD`); [`guard::run_guarded`], the memory
//! cap `hardpack audit` puts on a decoder, needs a Unix system.
//!
//! # Samples: where a trace cannot go
//!
//! ```no_run
//! # #[derive(serde::Serialize, serde::Deserialize)]
//! # #[serde(untagged)]
//! # enum AccountId { Numeric(u64), Sharded { shard: u16, local: u64 } }
//! # fn main() {
//! // An untagged struct variant says nothing when refused: a sample reaches it.
//! hardpack_check::check::<AccountId>()
//!     .sample(&AccountId::Sharded { shard: 3, local: 12 })
//!     .samples("captured/")             // messages captured from production, one a file
//!     .assert_hardened();
//! # }
//! ```
//!
//! Each sample is attacked node by node, the rest of the document left valid: the largest
//! claim at each collection and str, the extremes at each integer (a `len: u32` that sizes a
//! buffer gets 4294967295), each container nested deep enough to overflow the decoding stack
//! at 16 bytes a level (131,073 levels on the default 2 MiB), a bomb in an unknown key of
//! each map, duplicate keys, every cut. `hardpack mutate captured/ --write payloads/` writes
//! the same attacks to files, for a decoder in another language.
//!
//! # Reported payloads
//!
//! `check::<Request>().payloads("reports/")` runs the files of a directory instead: "does this
//! report hurt my service" is one call.
//!
//! # The report
//!
//! [`Check::run`] returns a [`Report`]: [`Report::text`] (a summary, the broken payloads, the
//! highest amplifications), [`Report::json`] (every payload) and [`Report::html`] (one page
//! with charts, as `hardpack audit --html` writes). With hardpack as the decoder, the report
//! shows what the typed budget charged beside the heap really held, and recommends a
//! `max_alloc_bytes` for the type from the worst ratio.
//!
//! Two more questions, with hardpack as the decoder:
//!
//! ```no_run
//! # #[derive(serde::Serialize, serde::Deserialize)] struct Request { id: u64 }
//! # fn main() {
//! use hardpack::Limit;
//! // Does every accepted value encode, decode and encode to the same bytes?
//! hardpack_check::check::<Request>().round_trip().assert_hardened();
//! // Which payloads decode under which budget (each run held to its own heap bound)?
//! let report = hardpack_check::check::<Request>()
//!     .sweep(Limit::AllocBytes, [1 << 10, 1 << 16, 1 << 20, 64 << 20])
//!     .run();
//! std::fs::write("request-budget.html", report.html().unwrap()).unwrap();
//! # }
//! ```
//!
//! ```
//! let payloads = hardpack_check::generic();
//! let bomb = payloads.iter().find(|p| p.id == "bomb-arrays-129").unwrap();
//! assert_eq!(bomb.bytes.len(), 130);
//! let err = hardpack::decode(&bomb.bytes).unwrap_err();
//! assert_eq!(err.limit(), Some(hardpack::Limit::Depth));
//! ```
//!
//! # A fuzz target on your type
//!
//! In a cargo-fuzz crate (`fuzz/fuzz_targets/request.rs`):
//!
//! ```ignore
//! #![no_main]
//! hardpack_check::fuzz_typed!(libfuzzer, my_service::Request, roundtrip);
//! ```
//!
//! and its seeds, once: `hardpack_check::write_seeds::<Request>("fuzz/corpus/request")`. The
//! oracles are in [`fuzz`]; `check/example/fuzz` in hardpack's repository is the template
//! applied to three types (`scripts/fuzz-example` runs it).
//!
//! The target builds like hardpack's own, so it runs unchanged on ClusterFuzzLite or
//! OSS-Fuzz. A `.clusterfuzzlite/build.sh` (with `project.yaml` saying `language: rust` and a
//! `Dockerfile` from `gcr.io/oss-fuzz-base/base-builder-rust`) needs these lines:
//!
//! ```sh
//! cd "$SRC/my-service"
//! cargo run -q --example write_seeds -- "$WORK/seeds"   # write_seeds for each type
//! cd fuzz && cargo fuzz build -O --debug-assertions
//! for t in request event; do
//!   cp "target/x86_64-unknown-linux-gnu/release/$t" "$OUT/"
//!   (cd "$WORK/seeds/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
//!   printf '[libfuzzer]\nmax_len = 4096\n' > "$OUT/$t.options"
//! done
//! ```
//!
//! (`check/example/.clusterfuzzlite/build.sh` in hardpack's repository is this for the example
//! types, and hardpack's CI builds and runs it.) ClusterFuzzLite's own workflows (code-change
//! fuzzing on pull requests, batch fuzzing on a schedule) then run the targets; on OSS-Fuzz the
//! same `build.sh` is the project's. The fuzz crate can depend on this crate with
//! `default-features = false`: the HTML report is not needed there.
//!
//! # How the tracer sees a type
//!
//! It hands the type's `Deserialize` the smallest value of each kind asked for and records
//! what was asked where. Where a value is refused it searches, learning from the refusal:
//! serde's messages name the missing field, the expected type, the variants, the length
//! (`invalid length 0, expected 32 bytes`); a hand-written impl's numbers and quoted words
//! are tried as values. A place read with `deserialize_any` (an internally or adjacently
//! tagged or untagged enum, a flattened struct) is handed self-describing samples the same
//! way, one per variant, and becomes [`shape::Shape::Sampled`]: its attacks are those samples
//! mutated node by node. A place that accepts every kind of value (`serde_json::Value`,
//! `hardpack::Value`) is [`shape::Shape::Opaque`] and gets the generic bombs and claims. A
//! type may borrow (`&'a str`, `#[serde(borrow)] Cow`): check `T<'static>` and decode with
//! [`Check::decoder_borrowing`].
//!
//! Every variant of every enum is traced, wherever the enum sits (a sequence, an option, a
//! map's values, another enum's variant, a generic's parameter), and a variant traced in one
//! position is the same in every other. Shapes are keyed by the type, not by its serde name:
//! `Lww<u8>` and `Lww<Inner>` are two shapes, and only a real recursion is one. Where a
//! leaf refuses what the tracer tries (a range syntax, a key of exact length), the values of
//! the samples given are tried first.
//!
//! What it cannot see, it says ([`Report::unseen`], [`Report::trace_gaps`]): a variant it
//! could not build, with the refusal; a place that accepted every value tried; an untagged
//! enum's refusal, which names nothing, so its variants that are not plain values are found
//! only by a sample; a struct field with `#[serde(alias)]` shifts the names of the fields
//! after it in payload ids (serde lists aliases among the field names); a type it cannot get
//! through at all (one that recurses with no `Option`, collection or ending variant, or
//! refuses every value tried) gets the generic payloads and the reason, in
//! [`Report::trace_error`], and the check fails until a sample is given.

// The counting allocator implements `GlobalAlloc`, which is unsafe to implement, and the
// child that forks a worker past each death calls libc to fork and wait; nothing else in the
// crate is unsafe.
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[allow(unsafe_code)]
pub mod alloc;
#[cfg(target_os = "linux")]
mod fork;
pub mod fuzz;
mod generic;
pub mod guard;
#[cfg(feature = "html")]
pub mod html;
pub mod ledger;
mod msgpack;
pub mod mutate;
mod payload;
mod report;
mod run;
pub mod sample;
mod search;
pub mod shape;
mod typed;

pub use alloc::CountingAlloc;
pub use generic::generic;
pub use ledger::{Ledger, Line, Open};
pub use payload::{Payload, PayloadBytes};
pub use report::{human_bytes, Outcome, PlaceReach, Report, Row};
pub use run::{
    check, Amplification, Check, DEFAULT_AMPLIFICATION, DEFAULT_HEAP_CEILING, DEFAULT_STACK_BYTES,
    DEFAULT_TIME_LIMIT,
};
pub use typed::{
    for_sample, for_type, from_shape, payloads_for, seeds_for, write_sample_seeds, write_seeds,
    MAX_SEED_BYTES, RECURSION_DEPTH,
};

/// One line for a test file: declares [`CountingAlloc`] as the global allocator and one
/// `#[test]` per type, each asserting the type decoded by hardpack under `Limits::default()`
/// is hardened ([`Check::assert_hardened`]).
///
/// ```ignore
/// // tests/hardened.rs
/// hardpack_check::hardened_tests!(request: my_service::Request, event: my_service::Event);
/// ```
///
/// A type that needs samples, another decoder or other limits gets its own `#[test]` with
/// [`check`]; the allocator this macro declares serves it too.
#[macro_export]
macro_rules! hardened_tests {
    ($($name:ident: $ty:ty),+ $(,)?) => {
        #[global_allocator]
        static HARDPACK_CHECK_ALLOC: $crate::CountingAlloc = $crate::CountingAlloc;
        $(
            #[test]
            fn $name() {
                $crate::check::<$ty>().assert_hardened();
            }
        )+
    };
}
