//! A user-side bug planted under each shape serde derives or users write is found by the
//! check: an allocation sized by a field (`vec![0u8; len]`), a reservation sized by a size
//! hint (`Vec::with_capacity(seq.size_hint())`), and a visitor that recurses once per element.
//! Each shape × bug is one test, with hardpack and with rmp-serde as the decoder.
//!
//! Where a bug cannot fire, the test says so and asserts the check is clean: serde buffers an
//! internally tagged, untagged or flattened value before the type reads it, so a size hint
//! there is the real count; and hardpack never hints more elements than bytes are left.

use std::fmt;

use hardpack_check::{check, CountingAlloc, Outcome, Report};

mod common;
use common::Hash;
use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Allocates the buffer its length says, before any body arrives.
#[derive(Debug)]
struct AllocFromLen(#[allow(dead_code)] Vec<u8>);

impl<'de> Deserialize<'de> for AllocFromLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let len = u32::deserialize(d)?;
        Ok(AllocFromLen(std::hint::black_box(vec![0u8; len as usize])))
    }
}

/// Reserves what the sequence's size hint says.
#[derive(Debug)]
struct Prealloc(#[allow(dead_code)] Vec<u64>);

impl<'de> Deserialize<'de> for Prealloc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Prealloc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of u64")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Prealloc, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Prealloc(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A linked list built by a visitor that recurses once per element.
#[derive(Debug)]
struct RecursiveList(#[allow(dead_code)] Option<Box<Node>>);

#[derive(Debug)]
struct Node {
    #[allow(dead_code)]
    value: u64,
    #[allow(dead_code)]
    next: Option<Box<Node>>,
}

impl<'de> Deserialize<'de> for RecursiveList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fn build<'de, A: SeqAccess<'de>>(seq: &mut A) -> Result<Option<Box<Node>>, A::Error> {
            match seq.next_element::<u64>()? {
                None => Ok(None),
                Some(value) => Ok(Some(Box::new(Node {
                    value,
                    next: build(seq)?,
                }))),
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RecursiveList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of u64")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RecursiveList, A::Error> {
                Ok(RecursiveList(build(&mut seq)?))
            }
        }
        d.deserialize_seq(V)
    }
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Plain<B> {
    id: u8,
    data: B,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(tag = "type")]
enum Internal<B> {
    Empty,
    Full { data: B },
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(tag = "t", content = "c")]
enum Adjacent<B> {
    Empty,
    Full(B),
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Untagged<B> {
    Full { data: B, n: u8 },
    Text(String),
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Flattened<B> {
    id: u8,
    #[serde(flatten)]
    inner: Inner<B>,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Inner<B> {
    data: B,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Validating<B> {
    hash: Hash,
    data: B,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Borrowing<'a, B> {
    name: &'a str,
    #[serde(borrow)]
    label: std::borrow::Cow<'a, str>,
    data: B,
}

/// What a planted bug does to the decode, when found.
fn found(report: &Report, death: fn(&Outcome) -> bool) {
    eprintln!("{}", report.text());
    assert!(report.failure.is_none(), "{}", report.text());
    assert!(report.untested().is_none(), "{}", report.text());
    let hits: Vec<&str> = report
        .broken()
        .into_iter()
        .filter(|(row, _)| death(&row.outcome))
        .map(|(row, _)| row.id.as_str())
        .collect();
    assert!(!hits.is_empty(), "not found:\n{}", report.text());
    eprintln!("found by: {hits:?}");
}

fn over_ceiling(o: &Outcome) -> bool {
    matches!(o, Outcome::OverHeapCeiling(m) if m.contains("memory allocation of"))
}

fn overflow(o: &Outcome) -> bool {
    *o == Outcome::StackOverflow
}

/// The sample an untagged enum's struct variant needs: the tracer cannot name it (serde's
/// untagged refusal says nothing), so the user hands one valid document, `{"data": ..,
/// "n": 7}` (serde reads an untagged struct variant from a map only).
fn untagged_sample(data: &[u8]) -> Vec<u8> {
    [
        &[0x82, 0xa4, b'd', b'a', b't', b'a'][..],
        data,
        &[0xa1, b'n', 0x07],
    ]
    .concat()
}

macro_rules! planted {
    ($name:ident, $ty:ty, hardpack, $death:ident $(, sample $sample:expr)?) => {
        #[test]
        fn $name() {
            let check = check::<$ty>();
            $(let check = check.sample_bytes("full", untagged_sample($sample));)?
            found(&check.run(), $death);
        }
    };
    ($name:ident, $ty:ty, rmp_serde, $death:ident $(, sample $sample:expr)?) => {
        #[test]
        fn $name() {
            let check = check::<$ty>();
            $(let check = check.sample_bytes("full", untagged_sample($sample));)?
            let check = check.decoder_borrowing("rmp-serde", |b| rmp_serde::from_slice::<$ty>(b));
            found(&check.run(), $death);
        }
    };
}

// An allocation sized by a field: found under every shape, with either decoder.
planted!(
    alloc_plain_hardpack,
    Plain<AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_plain_rmp_serde,
    Plain<AllocFromLen>,
    rmp_serde,
    over_ceiling
);
planted!(
    alloc_internal_hardpack,
    Internal<AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_internal_rmp_serde,
    Internal<AllocFromLen>,
    rmp_serde,
    over_ceiling
);
planted!(
    alloc_adjacent_hardpack,
    Adjacent<AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_adjacent_rmp_serde,
    Adjacent<AllocFromLen>,
    rmp_serde,
    over_ceiling
);
planted!(
    alloc_untagged_hardpack,
    Untagged<AllocFromLen>,
    hardpack,
    over_ceiling,
    sample & [0x01]
);
planted!(
    alloc_untagged_rmp_serde,
    Untagged<AllocFromLen>,
    rmp_serde,
    over_ceiling,
    sample & [0x01]
);
planted!(
    alloc_flattened_hardpack,
    Flattened<AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_flattened_rmp_serde,
    Flattened<AllocFromLen>,
    rmp_serde,
    over_ceiling
);
planted!(
    alloc_validating_hardpack,
    Validating<AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_validating_rmp_serde,
    Validating<AllocFromLen>,
    rmp_serde,
    over_ceiling
);
planted!(
    alloc_borrowing_hardpack,
    Borrowing<'static, AllocFromLen>,
    hardpack,
    over_ceiling
);
planted!(
    alloc_borrowing_rmp_serde,
    Borrowing<'static, AllocFromLen>,
    rmp_serde,
    over_ceiling
);

// A reservation sized by the size hint: rmp-serde hands the header's claim where the type
// reads the input directly; hardpack's hint never exceeds the bytes left.
planted!(
    prealloc_plain_rmp_serde,
    Plain<Prealloc>,
    rmp_serde,
    over_ceiling
);
planted!(
    prealloc_adjacent_rmp_serde,
    Adjacent<Prealloc>,
    rmp_serde,
    over_ceiling
);
planted!(
    prealloc_validating_rmp_serde,
    Validating<Prealloc>,
    rmp_serde,
    over_ceiling
);
planted!(
    prealloc_borrowing_rmp_serde,
    Borrowing<'static, Prealloc>,
    rmp_serde,
    over_ceiling
);

#[test]
fn prealloc_under_hardpack_is_bounded_by_the_input() {
    let report = check::<Adjacent<Prealloc>>().run();
    eprintln!("{}", report.text());
    report.assert_hardened();
}

#[test]
fn prealloc_behind_a_buffering_shape_is_bounded_by_the_buffer() {
    let report = check::<Internal<Prealloc>>()
        .decoder("rmp-serde", |b| {
            rmp_serde::from_slice::<Internal<Prealloc>>(b)
        })
        .run();
    eprintln!("{}", report.text());
    assert!(
        report
            .broken()
            .iter()
            .all(|(r, _)| !over_ceiling(&r.outcome)),
        "{}",
        report.text()
    );
}

// A visitor that recurses once per element: found under every shape, with either decoder
// (65535 elements, each a frame, on the 2 MiB stack of a tokio worker).
planted!(
    recursion_plain_hardpack,
    Plain<RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_plain_rmp_serde,
    Plain<RecursiveList>,
    rmp_serde,
    overflow
);
planted!(
    recursion_internal_hardpack,
    Internal<RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_adjacent_hardpack,
    Adjacent<RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_adjacent_rmp_serde,
    Adjacent<RecursiveList>,
    rmp_serde,
    overflow
);
planted!(
    recursion_untagged_hardpack,
    Untagged<RecursiveList>,
    hardpack,
    overflow,
    sample & [0x92, 0x01, 0x02]
);
planted!(
    recursion_flattened_hardpack,
    Flattened<RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_validating_hardpack,
    Validating<RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_borrowing_hardpack,
    Borrowing<'static, RecursiveList>,
    hardpack,
    overflow
);
planted!(
    recursion_internal_rmp_serde,
    Internal<RecursiveList>,
    rmp_serde,
    overflow
);
planted!(
    recursion_untagged_rmp_serde,
    Untagged<RecursiveList>,
    rmp_serde,
    overflow,
    sample & [0x92, 0x01, 0x02]
);
planted!(
    recursion_flattened_rmp_serde,
    Flattened<RecursiveList>,
    rmp_serde,
    overflow
);
planted!(
    recursion_validating_rmp_serde,
    Validating<RecursiveList>,
    rmp_serde,
    overflow
);
planted!(
    recursion_borrowing_rmp_serde,
    Borrowing<'static, RecursiveList>,
    rmp_serde,
    overflow
);

/// A message whose kind is a number, dispatched by hand (serde's internally tagged enums take
/// names only), with one kind left unimplemented: a panic any client can trigger.
#[derive(Debug)]
enum Numbered {
    Ping,
    Call(#[allow(dead_code)] Call),
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Call {
    kind: u8,
    target: String,
}

impl<'de> Deserialize<'de> for Numbered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, Unexpected};
        let value = serde_json::Value::deserialize(d)?;
        match value.get("kind").and_then(serde_json::Value::as_u64) {
            Some(1) => Call::deserialize(value)
                .map(Numbered::Call)
                .map_err(|_| D::Error::custom("not a call")),
            Some(2) => unimplemented!("kind 2 (stream) is not implemented"),
            Some(3) => Ok(Numbered::Ping),
            Some(n) => Err(D::Error::invalid_value(
                Unexpected::Unsigned(n),
                &"a kind from 1 to 3",
            )),
            None => Err(D::Error::missing_field("kind")),
        }
    }
}

fn panicked(o: &Outcome) -> bool {
    matches!(o, Outcome::Panicked(m) if m.contains("kind 2"))
}

planted!(
    unimplemented_dispatch_hardpack,
    Numbered,
    hardpack,
    panicked
);
planted!(
    unimplemented_dispatch_rmp_serde,
    Numbered,
    rmp_serde,
    panicked
);
