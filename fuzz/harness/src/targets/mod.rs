//! The fuzz targets, each defined once. A target takes the raw input, checks its property and
//! panics with a message naming the broken property when it does not hold; otherwise it
//! returns what the codec did with the input, which the regression replay compares with the
//! case's expected outcome.

use hardpack::{value::Shape, Limit, Limits};

/// What the codec did with an input, as a target saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The input decoded.
    Decoded {
        /// The top-level value's type.
        type_name: &'static str,
        /// Its shape.
        shape: Shape,
        /// Bytes it took.
        consumed: usize,
    },
    /// The codec refused it.
    Rejected(hardpack::Error),
    /// A structured target's input described a value, and every check on it held; there is no
    /// decoding verdict on the input itself.
    Checked,
    /// A structured target's input was too short to describe a value.
    NoValue,
}

impl Outcome {
    /// The error kind (`hardpack::Error::kind_name`) of a rejection.
    pub fn kind_name(&self) -> Option<&'static str> {
        match self {
            Outcome::Rejected(e) => Some(e.kind_name()),
            _ => None,
        }
    }

    /// The limit that refused the input, if one did.
    pub fn limit_name(&self) -> Option<&'static str> {
        match self {
            Outcome::Rejected(e) => e.limit().map(Limit::name),
            _ => None,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Decoded { .. } => f.write_str("decoded"),
            Outcome::Rejected(e) => match e.limit() {
                None => write!(f, "rejected: {}", e.kind_name()),
                Some(limit) => write!(f, "rejected: {} ({limit})", e.kind_name()),
            },
            Outcome::Checked => f.write_str("checked"),
            Outcome::NoValue => f.write_str("no value"),
        }
    }
}

/// A named target.
pub struct Target {
    /// Its name, as used by cargo-fuzz, AFL, `regression/` metadata and `hardpack repro`.
    pub name: &'static str,
    /// Its entry point: checks the target's properties (panicking when one does not hold)
    /// and returns what the codec did.
    pub run: fn(&[u8]) -> Outcome,
    /// The limits the target decodes this input under (`None` for the structured targets,
    /// whose input is no MessagePack).
    pub limits: fn(&[u8]) -> Option<Limits>,
    /// What it checks, for the README and `hardpack targets`.
    pub checks: &'static str,
}

/// Every target: the one list that the fuzz wrappers, the scripts (through `hardpack
/// targets`), the regression replay and `hardpack repro --target` use.
pub const TARGETS: &[Target] = &[
    Target {
        name: "decode",
        run: decode,
        limits: |_| Some(Limits::default()),
        checks: "default Limits; if Ok, encode then decode gives the same value, and the \
                 re-encoding is minimal (re-encoding it again is identical) and no longer than \
                 the input",
    },
    Target {
        name: "decode_limits",
        run: decode_limits,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; measured peak heap <= max_alloc_bytes \
                 under both InvalidUtf8 policies (Replace differs only on invalid UTF-8); \
                 every container of an Ok value within its limit; a rejection names a limit \
                 the payload really exceeds",
    },
    Target {
        name: "roundtrip_structured",
        run: roundtrip_structured,
        limits: |_| None,
        checks: "an arbitrary Value (deep and wide shapes, every scalar edge) encodes, \
                 decodes back equal, and its encoding equals rmpv's encoding of the same value",
    },
    Target {
        name: "encode_deep",
        run: encode_deep,
        limits: |_| None,
        checks: "an arbitrary deep/wide shape (up to 1,024 levels, depth on a log scale) \
                 built iteratively is encoded, decoded, cloned, compared, printed and dropped \
                 on one long-lived thread with a 64 KiB stack",
    },
    Target {
        name: "validate_agrees",
        run: validate_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (as in decode_limits); under both \
                 InvalidUtf8 policies skip and validate give what decode_prefix and decode give \
                 (the same error, offset and depth; the same bytes consumed and charged), and \
                 skip makes no heap allocation when max_depth <= 128 (one above)",
    },
    Target {
        name: "value_ref_agrees",
        run: value_ref_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (as in decode_limits); decode_ref and \
                 decode_ref_prefix give what decode and decode_prefix give (an equal value, \
                 to_owned equal to the owned decode, the same encoding, shape and bytes \
                 consumed, or the same error), but for refusals by max_alloc_bytes, which \
                 each charges for its own allocations; decode_ref's measured peak heap stays \
                 within max_alloc_bytes and within what it charged",
    },
    Target {
        name: "tokens_roundtrip",
        run: tokens_roundtrip,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; the token reader's tokens of the first \
                 value, re-encoded, are the owned decode's encoding, and read back give the \
                 same tokens; it refuses what skip refuses, with the same error (but for \
                 max_alloc_bytes, as in value_ref_agrees); its peak heap is what it charged",
    },
    Target {
        name: "strict",
        run: strict,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; a document strict mode accepts is the \
                 lenient decode's value and re-encodes byte for byte, with str keys only and \
                 no key twice in a map; a strict refusal (non_canonical, non_str_key, \
                 duplicate_key) names a violation the lenient value really has; the first \
                 repeated key (found by a hash set of each map's keys, apart from strict \
                 mode's sort) is refused at its offset naming its earlier copy, unless a \
                 violation before its map's end comes first; any other \
                 refusal is the lenient decode's (but for max_alloc_bytes, which strict mode \
                 also charges for its keys); skip and decode_ref in strict mode agree",
    },
    Target {
        name: "model_agrees",
        run: model_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (the budget aside); decode_prefix and \
                 decode give the reference decoder's verdict (model.rs, written from the \
                 specification, sharing no decoding code): the same value and length, or the \
                 same error kind, offset, depth and needed",
    },
    Target {
        name: "stream_split",
        run: stream_split,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits, the next one how the rest is split \
                 (0: one byte at a time); fed to a StreamDecoder in those pieces, it yields \
                 exactly the values and the error (kind, stream offset, depth) that \
                 decode_prefix gives value after value on the whole; with a small \
                 max_buffer_bytes it yields a prefix of them, then the same error or \
                 buffer_limit, its peak held bytes within max_buffer_bytes, never waiting \
                 for a value whose headers (read by skip) already need more than \
                 max_buffer_bytes, and its measured \
                 peak heap within max_alloc_bytes + 2 x (max_buffer_bytes + piece) + 16 x \
                 open levels + 4 KiB; \
                 next_as::<schema::Any> on the same pieces gives the same values and the same \
                 kind of error (budget refusals aside)",
    },
    Target {
        name: "serde_typed",
        run: serde_typed,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; from_slice into the built-in schema \
                 (schema::Any, any document) and into a ValueRef gives decode's verdict (the \
                 same error, but for max_alloc_bytes) and, if Ok, the same value; for a \
                 document decode accepts, the typed decode into schema::Any charges exactly \
                 what its tokens imply (size_of::<Any> per element, key and value; str, bin \
                 and ext bytes) and is refused by the budget exactly when that is over \
                 max_alloc_bytes; into a wide \
                 struct and into a recursive enum of every variant form it never panics, accepts \
                 only what decode accepts and refuses what decode accepts only for the type \
                 (a serde message), the depth or the budget; a value decoded (owned or through serde \
                 into a ValueRef) serializes through serde (to_vec, to_writer) to the bytes \
                 encode writes, unless deeper than SERIALIZE_MAX_DEPTH; into a newtype of an Option of \
                 itself it ends (each Some and newtype counts toward max_depth, capped at 128 \
                 here, as for the enum); measured peak heap within hardpack_check's heap_bound \
                 (2 x max_alloc_bytes + serde's 1 MiB cap per open collection); the wide \
                 struct also through hardpack_check's fuzz oracles",
    },
    Target {
        name: "serde_differential",
        run: serde_differential,
        limits: |_| Some(serde_differential_limits()),
        checks: "hardpack's from_slice and rmp_serde::from_slice agree on the built-in schema \
                 (schema::Any) where both accept; every disagreement is one of \
                 SERDE_DISAGREEMENTS",
    },
    #[cfg(feature = "derive")]
    Target {
        name: "derive_differential",
        run: derive_differential,
        limits: |data| Some(derive_differential_limits(data).0),
        checks: "the first 8 bytes choose the Limits (max_depth capped at 128); \
                 #[derive(Decode)] and serde's Deserialize on the same types (the benchmark's \
                 datasets, owned and borrowed; a recursive enum of every variant form with \
                 renamed, defaulted and skipped parts; a generic struct read from an array or a \
                 map) give the same value or the same error (kind, offset, depth), in strict \
                 mode too; a value decoded is written by #[derive(Encode)] as the serde path \
                 writes it",
    },
    Target {
        name: "differential_rmpv",
        run: differential_rmpv,
        limits: |_| Some(differential_limits()),
        checks: "hardpack's decode and rmpv::decode::read_value agree where both accept, \
                 and so do hardpack's decode_ref and rmpv::decode::read_value_ref; every \
                 disagreement is one of the documented kinds",
    },
];

impl Target {
    /// True for the targets whose input describes a value to build (through `arbitrary`)
    /// rather than MessagePack to decode.
    pub fn is_structured(&self) -> bool {
        (self.limits)(&[]).is_none()
    }
}

/// Looks a target up by name.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

#[cfg(feature = "derive")]
pub mod derived;
mod differential;
mod owned;
mod reference;
mod shapes;
mod stream;
mod surfaces;
mod typed;
#[cfg(feature = "derive")]
pub use derived::{derive_differential, derive_differential_limits};
pub use differential::*;
pub use owned::*;
pub use reference::*;
pub use shapes::*;
pub use stream::*;
pub use surfaces::*;
pub use typed::*;

#[cfg(test)]
mod tests {
    use super::*;
    use hardpack::{Decoder, ErrorKind};

    #[test]
    fn the_limits_header_reads_in_the_order_of_limit_all() {
        // The committed decode_limits seeds were written for this layout: depth, array, map,
        // str, bin, ext, then the budget in two bytes (x64).
        let (limits, payload) = limits_from_input(&[1, 2, 3, 4, 5, 6, 0, 2, 0xc0]);
        assert_eq!(
            limits,
            Limits::default()
                .with(Limit::Depth, 1)
                .with(Limit::ArrayLen, 2)
                .with(Limit::MapLen, 3)
                .with(Limit::StrLen, 4)
                .with(Limit::BinLen, 5)
                .with(Limit::ExtLen, 6)
                .with(Limit::AllocBytes, 128)
        );
        assert_eq!(payload, [0xc0]);
        assert_eq!(LIMITS_HEADER_LEN, 8);
    }

    fn seed(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/../../corpus/serde_typed/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The enum seeds are what they are named for: the enum takes the one, refuses the
    /// others for their shape, and the map-variant bomb at the depth limit.
    #[test]
    fn the_enum_seeds_reach_every_variant_and_each_refusal() {
        let decode = |name: &str| {
            let data = seed(name);
            let (limits, payload) = limits_from_input(&data);
            let outcome = Decoder::new(limits).from_slice::<Tree>(payload).map(|_| ());
            // The target's oracles hold on it (each panics otherwise).
            serde_typed(&data);
            outcome
        };
        let every = decode("typed-tree-every-variant");
        assert!(every.is_ok(), "{every:?}");
        for (name, says) in [
            ("typed-tree-unknown-variant", "unknown variant `Nope`"),
            ("typed-tree-two-entry-variant", "expected an enum"),
            ("typed-tree-short-tuple", "invalid length 1"),
            ("typed-tree-number-too-big", "40000"),
        ] {
            let e = decode(name).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::Custom { message } if message.contains(says)),
                "{name}: {e}"
            );
        }
        let bomb = decode("typed-map-bomb").unwrap_err();
        assert_eq!(bomb.limit(), Some(Limit::Depth), "{bomb}");
    }

    /// The struct seed in other integer widths is a whole struct, so every integer in it
    /// is read by the typed integer path.
    #[test]
    fn the_struct_seeds_are_whole_structs() {
        for name in ["typed-wide-struct", "typed-wide-struct-int-widths"] {
            let data = seed(name);
            let (limits, payload) = limits_from_input(&data);
            let wide = Decoder::new(limits).from_slice::<WideStruct>(payload);
            assert!(wide.is_ok(), "{name}: {:?}", wide.err());
        }
    }
}
