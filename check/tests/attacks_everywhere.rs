//! A shape gets the same attacks wherever it sits: a struct's attacks land in a struct
//! field and in a struct variant alike.

use std::collections::BTreeSet;

use hardpack_check::{check, for_type, CountingAlloc};
use serde::Deserialize;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Fields {
    x: u8,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Holder {
    fields: Fields,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
enum E {
    A { x: u8 },
    B,
}

/// The attacks written at `place`, by the last part of their id.
fn attacks_at<T: Deserialize<'static>>(place: &str) -> BTreeSet<String> {
    for_type::<T>()
        .unwrap()
        .into_iter()
        .filter(|p| p.place.as_deref() == Some(place))
        .filter_map(|p| p.id.rsplit('.').next().map(str::to_string))
        .collect()
}

#[test]
fn a_struct_variant_gets_a_structs_attacks() {
    let in_a_field = attacks_at::<Holder>("Holder.fields");
    let in_a_variant = attacks_at::<E>("E::A");
    for attack in [
        "unknown-field-nested",
        "unknown-field-claims",
        "duplicate-field",
    ] {
        assert!(in_a_field.contains(attack), "{in_a_field:?}");
        assert!(in_a_variant.contains(attack), "{in_a_variant:?}");
    }
}

/// rmp-serde skips an unknown field recursively, up to its depth limit: in a debug build its
/// frames overflow a 2 MiB stack first; in release it refuses at that limit.
#[test]
fn the_unknown_field_bomb_in_a_struct_variant_reaches_rmp_serde() {
    let report = check::<E>()
        .decoder("rmp-serde", |bytes| rmp_serde::from_slice::<E>(bytes))
        .run();
    let row = report
        .rows
        .iter()
        .find(|row| row.id == "E::A.unknown-field-nested")
        .expect("the attack is written in the struct variant");
    match report.broken_because(row) {
        Some(why) => {
            // Only a debug build's frames are large enough to overflow first.
            let debug = cfg!(debug_assertions);
            assert!(debug, "{why}");
            assert!(why.contains("overflowed"), "{why}");
            assert!(!report.is_hardened());
        }
        None => {
            let message = format!("{:?}", row.outcome);
            assert!(message.contains("depth"), "{}", report.text());
        }
    }
}
