//! The generated types and their four oracles (see the crate docs). One check a test: each
//! check's children run the test again.

use hardpack_check_proof::*;

#[global_allocator]
static ALLOC: hardpack_check::CountingAlloc = hardpack_check::CountingAlloc;

/// How a generated `IgnoredAny` field is written in a sample: nil.
fn ser_ignored<S: serde::Serializer>(
    _: &serde::de::IgnoredAny,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_unit()
}

fn no_samples<T: for<'de> serde::Deserialize<'de> + 'static>(seed: u64, truth: &Truth) {
    hardpack_check_proof::no_samples::<T>(seed, truth)
}

fn every_sample<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> serde::Deserialize<'de> + serde::Serialize + 'static,
{
    hardpack_check_proof::every_sample::<T>(seed, truth, samples)
}

fn some_samples<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> serde::Deserialize<'de> + serde::Serialize + 'static,
{
    hardpack_check_proof::some_samples::<T>(seed, truth, samples)
}

fn refused_variant<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> serde::Deserialize<'de> + serde::Serialize + 'static,
{
    hardpack_check_proof::refused_variant::<T>(seed, truth, samples)
}

include!(concat!(env!("OUT_DIR"), "/generated.rs"));
include!("kept/mod.rs");

/// Every shape and position the generator plants in, counted: with the whole set (a release
/// build's default, or more), each appears.
#[test]
fn the_generator_covers_every_shape_and_position() {
    if TYPES < 100 {
        return;
    }
    let count = |what: &str| {
        COVERAGE
            .iter()
            .find(|(k, _)| *k == what)
            .map_or(0, |(_, n)| *n)
    };
    for what in [
        "enum externally tagged",
        "enum internally tagged",
        "enum adjacently tagged",
        "enum untagged",
        "untagged catch-all",
        "flatten",
        "default",
        "skip",
        "rename",
        "alias",
        "recursion",
        "generic with two parameters",
        "enum in struct field",
        "enum in sequence",
        "enum in map value",
        "enum in option",
        "enum in tuple",
        "enum in newtype",
        "enum in generic",
        "enum in newtype variant",
        "enum in tuple variant",
        "enum in struct variant field",
        "leaf validating in struct field",
        "leaf validating in struct variant",
        "leaf validating in map value",
        "leaf opaque in struct field",
        "leaf opaque in tuple variant",
    ] {
        assert!(count(what) > 0, "no {what} in {COVERAGE:?}");
    }
}
