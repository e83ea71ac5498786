//! The typed path: `serde_typed` (verdicts, values and the heap bound through serde) and
//! `serde_differential` (against rmp-serde).

use hardpack::{Decoder, ErrorKind, Limit, Limits, Value};

use crate::alloc_meter;

use super::*;

/// A struct with a field of every kind, for typed decoding of arbitrary bytes.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
pub(super) struct WideStruct<'a> {
    flag: bool,
    small: i8,
    big: u64,
    float: f64,
    text: &'a str,
    owned: String,
    #[serde(with = "serde_bytes_field")]
    bytes: Vec<u8>,
    maybe: Option<Box<WideStruct<'a>>>,
    list: Vec<u16>,
    map: std::collections::BTreeMap<String, i32>,
    when: Option<hardpack::timestamp::Timestamp>,
    tuple: (u8, char),
}

/// A type serde recurses through without reading a container: a newtype around an
/// `Option` of itself. Only the depth limit's count of such levels ends it.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
pub(super) struct Chain(Option<Box<Chain>>);

/// An enum of every variant form rmp-serde writes (a unit variant as its name; newtype,
/// tuple and struct variants as a one-entry map from the name), recursive through `Box`,
/// `Vec` and a map as the reported serde depth bombs were, with the shapes serde_derive
/// reads besides a struct: `()`, a unit struct, a tuple struct.
#[derive(serde::Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
pub(super) enum Tree<'a> {
    Leaf,
    Boxed(Box<Tree<'a>>),
    List(Vec<Tree<'a>>),
    Map(std::collections::BTreeMap<&'a str, Tree<'a>>),
    Number(i16),
    Tuple(u8, Marker, Pair),
    Node {
        name: &'a str,
        nothing: (),
        next: Option<Box<Tree<'a>>>,
    },
}

/// A unit struct (rmp-serde writes an empty array).
#[derive(serde::Deserialize, Debug, PartialEq)]
pub(super) struct Marker;

/// A tuple struct (an array of its fields).
#[derive(serde::Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
pub(super) struct Pair(u32, bool);

/// The depth `serde_typed` decodes [`Chain`] under: every level the limit lets through is a
/// native call chain, and the target runs on the fuzzer's own thread.
pub(super) const CHAIN_MAX_DEPTH: usize = 128;

pub(super) mod serde_bytes_field {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        crate::schema::deserialize_bytes(d)
    }
}

/// What the typed budget charges to decode `document` (one whole value) as
/// [`schema::Any`](crate::schema::Any), by the model `hardpack::de` documents, counted from
/// the document's tokens: `size_of` the element type for each element of a sequence (all of
/// them charged when the first is handed out), twice that for each key and each value of a
/// map (a map collection's table); the bytes of each str and bin (read through
/// `deserialize_any`, which may copy them); each ext's data as the visitor gets it, a
/// timestamp's in its smallest form (the (type, data) pair an ext's newtype visitor reads is
/// no heap collection: the data is the one copy).
pub fn any_charge(document: &[u8]) -> usize {
    use hardpack::decode::Token;
    use std::mem::size_of;
    let element = size_of::<crate::schema::Any>();
    let mut reader = hardpack::decode::TokenReader::new(document, &Limits::unlimited());
    let mut charged = 0usize;
    while let Ok(Some((_, token))) = reader.next_token() {
        charged += match token {
            Token::Array(n) => n as usize * element,
            Token::Map(n) => n as usize * 2 * (2 * element),
            Token::Str(s) => s.len(),
            Token::Bin(b) | Token::Ext(_, b) => b.len(),
            // Handed to the visitor in its smallest form, whatever form was read.
            Token::Timestamp(ts) => timestamp_form_len(&ts),
            _ => 0,
        };
    }
    charged
}

/// The data length of a timestamp's smallest form: 4, 8 or 12 bytes (computed here, apart
/// from the codec's encoder).
fn timestamp_form_len(ts: &hardpack::timestamp::Timestamp) -> usize {
    let (secs, nanos) = (ts.seconds(), ts.nanoseconds());
    if nanos == 0 && (0..=i64::from(u32::MAX)).contains(&secs) {
        4
    } else if (0..1 << 34).contains(&secs) {
        8
    } else {
        12
    }
}

/// For a document the decoder's limits accept but for the budget: the typed decode into
/// `Any` charges exactly [`any_charge`], accepts it when that is within `max_alloc_bytes` and
/// is refused by the budget when it is not (a charge skipped, or a refusal ignored, fails on
/// one input).
fn charges_what_the_model_says(decoder: &Decoder, payload: &[u8]) {
    let unbudgeted = decoder.limits().clone().with(Limit::AllocBytes, usize::MAX);
    if Decoder::new(unbudgeted).validate(payload).is_err() {
        return;
    }
    let expected = any_charge(payload);
    let budget = decoder.limits().max_alloc_bytes;
    match decoder.from_slice_with_stats::<crate::schema::Any>(payload) {
        Ok((_, stats)) => {
            assert!(
                stats.charged_bytes == expected,
                "the typed decode into Any charged {} bytes; its elements, strs, bins and \
                 exts come to {expected}",
                stats.charged_bytes
            );
            assert!(
                expected <= budget,
                "the typed decode accepted a document whose charge {expected} is over \
                 max_alloc_bytes {budget}"
            );
        }
        Err(e) => assert!(
            budget_error(&e) && expected > budget,
            "the typed decode into Any refused ({e}) a document the owned decode accepts, \
             whose charge {expected} is within max_alloc_bytes {budget}"
        ),
    }
}

/// Typed decoding into the built-in schema agrees with decode; into a wide struct it holds.
pub fn serde_typed(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    let decoder = Decoder::new(limits.clone());
    let (typed, cost) = alloc_meter::measure(|| decoder.from_slice::<crate::schema::Any>(payload));
    let bound = hardpack_check::fuzz::heap_bound(&limits, payload.len());
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding allocated {} bytes at peak, above the documented {bound} for max_alloc_bytes {}",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let owned = decoder.decode(payload);
    same_verdict("from_slice::<Any>", &typed, &owned);
    charges_what_the_model_says(&decoder, payload);
    if let (Ok(any), Ok(value)) = (&typed, &owned) {
        assert!(
            any.to_value() == *value,
            "typed and owned decoding differ: {any:?} against {value:?}"
        );
    }
    // ValueRef through serde: the borrowed decode's document, borrowing from the payload.
    let (borrowed, cost) =
        alloc_meter::measure(|| decoder.from_slice::<hardpack::ValueRef>(payload));
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding into a ValueRef allocated {} bytes at peak",
        cost.peak_bytes
    );
    same_verdict("from_slice::<ValueRef>", &borrowed, &owned);
    if let (Ok(doc), Ok(value)) = (&borrowed, &owned) {
        assert!(doc == value, "from_slice::<ValueRef> and decode differ");
        // Back through serde's Serializer: the bytes encode writes, from either.
        let depth = value.shape().max_depth;
        serializes_as_encode("to_vec(&Value)", hardpack::to_vec(value), value, depth);
        serializes_as_encode("to_vec(&ValueRef)", hardpack::to_vec(doc), value, depth);
        let mut written = Vec::new();
        let to_writer = hardpack::ser::to_writer(&mut written, doc).map(|()| written);
        serializes_as_encode("to_writer(&ValueRef)", to_writer, value, depth);
    }
    // The oracles a user's own fuzz target runs (the kit's template), on a struct of every kind.
    let wide = hardpack_check::fuzz::decode_checked_with::<WideStruct>(&decoder, payload).map(drop);
    refused_only_for_the_type("from_slice::<WideStruct>", &wide, &owned);
    // Each Some and each newtype is a level: any input ends within max_depth of them.
    let chain_limits = limits
        .clone()
        .with(Limit::Depth, limits.max_depth.min(CHAIN_MAX_DEPTH));
    if let Err(e) = Decoder::new(chain_limits.clone()).from_slice::<Chain>(payload) {
        assert!(
            e.depth() <= chain_limits.max_depth,
            "an error past max_depth: {e}"
        );
    }
    // Serde recurses natively through the enum: under the same capped depth.
    let (tree, cost) =
        alloc_meter::measure(|| Decoder::new(chain_limits.clone()).from_slice::<Tree>(payload));
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding into an enum allocated {} bytes at peak",
        cost.peak_bytes
    );
    if let Err(e) = &tree {
        assert!(
            e.depth() <= chain_limits.max_depth,
            "an error past max_depth: {e}"
        );
    }
    refused_only_for_the_type("from_slice::<Tree>", &tree, &owned);
    match owned {
        Ok(value) => decoded(&value, payload.len()),
        Err(e) => Outcome::Rejected(e),
    }
}

/// A decoded value serialized through serde is what `encode` writes (each value in its
/// smallest form, ext and timestamps as rmp-serde's ext newtype), or, deeper than serde's
/// native recursion may go, refused for its depth alone.
pub(super) fn serializes_as_encode(
    what: &str,
    serialized: Result<Vec<u8>, hardpack::error::EncodeError>,
    value: &Value,
    depth: usize,
) {
    match serialized {
        Ok(bytes) => assert!(
            bytes == hardpack::encode(value).expect("a decoded value encodes"),
            "{what} wrote other bytes than encode"
        ),
        Err(e) => assert!(
            depth > hardpack::ser::SERIALIZE_MAX_DEPTH,
            "{what} refused a value {depth} deep: {e}"
        ),
    }
}

/// A typed decode into a type that takes some documents, against the owned decode of the
/// same bytes: accepting means the document is well-formed and within the limits; where it
/// is, a refusal is the type's (a serde message: the wrong kind, a missing field, an unknown
/// variant) or a limit the type adds to (each `Some`, newtype and enum level counts toward
/// the depth; its charges differ from the owned decode's).
pub(super) fn refused_only_for_the_type<T>(
    what: &str,
    typed: &Result<T, hardpack::Error>,
    owned: &Result<Value, hardpack::Error>,
) {
    match (typed, owned) {
        (Ok(_), Err(e)) => assert!(budget_error(e), "{what} accepted what decode refuses: {e}"),
        (Err(e), Ok(_)) => assert!(
            matches!(e.kind(), ErrorKind::Custom { .. })
                || e.limit() == Some(Limit::Depth)
                || budget_error(e),
            "{what} refused a well-formed document for a reason not its type's: {e}"
        ),
        _ => {}
    }
}

/// Where rmp-serde and hardpack's typed decoding may legitimately disagree.
pub const SERDE_DISAGREEMENTS: &[&str] = &[
    "rmp_serde::from_slice ignores bytes after the value; hardpack refuses them",
    "hardpack refuses invalid UTF-8 in str; rmp-serde hands the bytes on",
    "hardpack refuses the reserved marker 0xc1, an ext -1 that is no valid timestamp, and \
     input over its Limits",
    "rmp-serde refuses nesting past its own depth limit (1024); hardpack's differential limit \
     is higher",
    "rmp-serde hands an int in a signed form (int 8 to int 64) to the visitor as signed even \
     when it is not negative; hardpack hands every non-negative integer as u64: a visitor \
     that takes only u64 (an enum's variant index) takes 0xd0 0x04 from hardpack, not from \
     rmp-serde",
    "rmp-serde takes any item as a unit variant's name (a variant index, a bin); hardpack \
     takes a str (what rmp-serde writes) or a one-entry map, and names what it found",
    "rmp-serde takes a unit struct from nil or 0x90 only; hardpack from any empty array \
     (0xdc 0x0000 and 0xdd 0x00000000 too)",
    "both hand a bin to a type that asks for a sequence, tuple or struct as the sequence of \
     its bytes; rmp-serde ignores the bytes such a type leaves unread, hardpack refuses them \
     (as it refuses an array's unread elements)",
];

/// A refusal of hardpack's that rmp-serde does not make, for a reason
/// [`SERDE_DISAGREEMENTS`] gives: bytes after the value, invalid UTF-8, 0xc1, an invalid
/// timestamp, a limit.
pub(super) fn refused_for_what_rmp_serde_does_not_check(e: &hardpack::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::TrailingBytes { .. }
            | ErrorKind::InvalidUtf8 { .. }
            | ErrorKind::ReservedMarker
            | ErrorKind::InvalidTimestamp(_)
            | ErrorKind::LimitExceeded { .. }
    )
}

/// The limits `serde_differential` decodes under: the defaults, with the depth above
/// rmp-serde's own limit so that rmp-serde's is met first.
pub(super) fn serde_differential_limits() -> Limits {
    Limits::default().with(Limit::Depth, 2048)
}

/// hardpack's typed decoding against rmp-serde's, into the same schema.
pub fn serde_differential(data: &[u8]) -> Outcome {
    use crate::schema::Any;
    let limits = serde_differential_limits();
    let ours = Decoder::new(limits.clone()).from_slice::<Any>(data);
    let theirs = rmp_serde::from_slice::<Any>(data);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(
            a.to_value() == b.to_value(),
            "hardpack and rmp-serde decoded different values: {a:?} against {b:?}"
        ),
        (Err(e), Ok(_)) => assert!(
            refused_for_what_rmp_serde_does_not_check(e),
            "hardpack refused what rmp-serde accepts, for an undocumented reason: {e}"
        ),
        (Ok(any), Err(their_error)) => assert!(
            any.to_value().shape().max_depth >= 1024 / 2
                && their_error.to_string().contains("depth"),
            "rmp-serde refused ({their_error}) what hardpack accepts, for an undocumented reason"
        ),
        (Err(_), Err(_)) => {}
    }
    // Into the enum of every variant form, as rmp-serde writes and reads enums.
    let ours_tree = Decoder::new(limits.clone()).from_slice::<Tree>(data);
    let theirs_tree = rmp_serde::from_slice::<Tree>(data);
    match (&ours_tree, &theirs_tree) {
        (Ok(a), Ok(b)) => assert!(
            a == b,
            "hardpack and rmp-serde decoded different enums: {a:?} against {b:?}"
        ),
        (Err(e), Ok(_)) => assert!(
            refused_for_what_rmp_serde_does_not_check(e)
                || matches!(e.kind(), ErrorKind::Custom { message }
                    if message.starts_with("expected an enum")
                        || message.starts_with("the bin has")),
            "hardpack refused an enum rmp-serde accepts, for an undocumented reason: {e}"
        ),
        (Ok(_), Err(their_error)) => {
            let theirs = their_error.to_string();
            assert!(
                theirs.contains("depth")
                    || theirs.starts_with("invalid type: integer")
                        && theirs.ends_with("expected variant identifier")
                    || theirs == "invalid type: sequence, expected unit struct Marker",
                "rmp-serde refused ({theirs}) an enum hardpack accepts, for an undocumented reason"
            )
        }
        (Err(_), Err(_)) => {}
    }
    match ours {
        Ok(any) => decoded(&any.to_value(), data.len()),
        Err(e) => Outcome::Rejected(e),
    }
}
