//! The derive path (`#[derive(hardpack::Decode, hardpack::Encode)]`) against the serde path,
//! on types that derive both: the benchmark's datasets (owned and borrowed), and recursive,
//! enum-heavy and attribute-laden types of its own. [`Node`] is also what `hardpack repro
//! --surface derived` decodes into.

use std::collections::BTreeMap;

use hardpack::derive::{Decode, Encode};
use hardpack::{Decoder, Limits};
use serde::{Deserialize, Serialize};

use super::*;

#[path = "../../../../codec/benches/datasets/mod.rs"]
mod datasets;

/// An enum of every variant form, recursive through `Box`, `Vec`, `Option` and a map, with
/// renamed, defaulted and skipped parts.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
pub enum Node<'a> {
    Leaf,
    #[serde(rename = "b")]
    #[hardpack(rename = "b")]
    Boxed(Box<Node<'a>>),
    List(Vec<Node<'a>>),
    #[serde(borrow)]
    Map(BTreeMap<&'a str, Node<'a>>),
    Pair(i16, Option<Box<Node<'a>>>),
    Named {
        name: &'a str,
        #[serde(default)]
        #[hardpack(default)]
        weight: u32,
        #[serde(skip)]
        #[hardpack(skip)]
        cache: u8,
        next: Option<Box<Node<'a>>>,
    },
    Unit(Marker),
    Wrapped(Meters),
    Scalars([u8; 3], (bool, char), f32, u128),
}

/// A unit struct (rmp-serde writes an empty array).
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
pub struct Marker;

/// A newtype struct.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
pub struct Meters(f64);

/// A generic struct, borrowed and owned, read from an array or a map.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
pub struct Envelope<'a, T> {
    #[serde(rename = "k")]
    #[hardpack(rename = "k")]
    kind: &'a str,
    body: T,
    #[serde(with = "serde_bytes")]
    raw: &'a [u8],
    tags: Tags,
}

/// A `HashMap` whose hasher has no random seed: two equal maps filled in one order iterate in
/// one order, so the values the two paths decode compare by their encodings (with
/// `RandomState`, each map wrote its entries in an order of its own).
pub type Tags = std::collections::HashMap<
    String,
    i64,
    std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>,
>;

/// The depth this target decodes under, at most: the recursive types recurse natively on
/// the fuzzer's own thread, on both paths.
const MAX_DEPTH: usize = 128;

/// The limits a `derive_differential` input asks for (its header, as `decode_limits`'s), with
/// the depth capped.
pub fn derive_differential_limits(data: &[u8]) -> (Limits, &[u8]) {
    let (mut limits, payload) = limits_from_input(data);
    limits.max_depth = limits.max_depth.min(MAX_DEPTH);
    (limits, payload)
}

/// The derive path and the serde path on the same bytes as `T`: the same value, or the same
/// error (kind, offset, depth); a value decoded writes, by the derive path, what the serde
/// path writes, and reads back equal. Returns the derive path's result.
fn agree<'de, T>(decoder: &Decoder, input: &'de [u8]) -> Result<T, hardpack::Error>
where
    T: Deserialize<'de> + Decode<'de> + Serialize + Encode + PartialEq + std::fmt::Debug,
{
    let derived = decoder.from_slice_derived::<T>(input);
    let serde = decoder.from_slice::<T>(input);
    let name = std::any::type_name::<T>();
    match (&derived, &serde) {
        // Values compared by their encodings: a NaN field is not equal to itself.
        (Ok(ours), Ok(theirs)) => {
            let written = hardpack::derive::to_vec(ours).expect("a decoded value encodes");
            assert!(
                written == hardpack::to_vec(theirs).expect("a decoded value encodes"),
                "the derive path and the serde path read {name} differently: {ours:?} against {theirs:?}"
            );
            assert!(
                written == hardpack::to_vec(ours).expect("a decoded value encodes"),
                "the derive path writes {name} otherwise than the serde path"
            );
        }
        (Err(ours), Err(theirs)) => assert!(
            ours == theirs,
            "the derive path and the serde path refuse {name} differently: {ours:?} against {theirs:?}"
        ),
        _ => panic!("the derive path and the serde path differ on {name}: {derived:?} against {serde:?}"),
    }
    derived
}

/// The input's first bytes choose the limits; the rest is decoded as each type.
pub fn derive_differential(data: &[u8]) -> Outcome {
    let (limits, payload) = derive_differential_limits(data);
    let decoder = Decoder::new(limits);
    let _ = agree::<datasets::log::Logs>(&decoder, payload);
    let _ = agree::<datasets::log::BorrowLogs>(&decoder, payload);
    let _ = agree::<datasets::mesh::Mesh>(&decoder, payload);
    let _ = agree::<datasets::minecraft_savedata::Players>(&decoder, payload);
    let _ = agree::<datasets::minecraft_savedata::BorrowPlayers>(&decoder, payload);
    let _ = agree::<datasets::mk48::Updates>(&decoder, payload);
    let _ = agree::<Envelope<Node>>(&decoder, payload);
    let _ = agree::<Envelope<Vec<u64>>>(&decoder, payload);
    let _ = agree::<Node>(&decoder.clone().strict(), payload);
    match agree::<Node>(&decoder, payload) {
        // Described as the value its encoding decodes to.
        Ok(node) => {
            let bytes = hardpack::derive::to_vec(&node).expect("a decoded value encodes");
            let value = hardpack::decode(&bytes).expect("an encoded value decodes");
            decoded(&value, payload.len())
        }
        Err(e) => Outcome::Rejected(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed seed's document, after its limits header.
    fn seed(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/../../corpus/derive_differential/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        data[LIMITS_HEADER_LEN..].to_vec()
    }

    #[test]
    fn each_seed_decodes_as_the_type_it_is_written_for() {
        let decoder = Decoder::default();
        let node = seed("derive-node-every-variant");
        let Node::List(variants) = decoder.from_slice_derived::<Node>(&node).unwrap() else {
            panic!("a list of every variant");
        };
        assert_eq!(variants.len(), 10);
        decoder
            .from_slice_derived::<Envelope<Node>>(&seed("derive-envelope-array"))
            .unwrap();
        decoder
            .from_slice_derived::<Envelope<Vec<u64>>>(&seed("derive-envelope-map"))
            .unwrap();
        let logs = seed("derive-logs");
        assert_eq!(
            decoder
                .from_slice_derived::<datasets::log::Logs>(&logs)
                .unwrap()
                .logs
                .len(),
            2
        );
        decoder
            .from_slice_derived::<datasets::log::BorrowLogs>(&logs)
            .unwrap();
        decoder
            .from_slice_derived::<datasets::mesh::Mesh>(&seed("derive-mesh"))
            .unwrap();
        decoder
            .from_slice_derived::<datasets::mk48::Updates>(&seed("derive-mk48-updates"))
            .unwrap();
    }
}
