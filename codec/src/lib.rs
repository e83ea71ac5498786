//! A MessagePack codec for Rust that no input can knock over.
//!
//! Every decoding surface (an owned `Value`, a borrowed `ValueRef`, validation without
//! building anything, serde types, a resumable stream decoder) stands on one reader, where
//! each check lives once:
//!
//! - **Bounds-checked**: every read goes through a cursor that reports how many bytes were
//!   missing; the crate has no `unsafe` and no panicking index.
//! - **Stack-free**: decoding, encoding, cloning, comparing, printing and dropping a value walk
//!   an explicit heap stack, so a document nested a million deep is handled on a 64 KiB
//!   thread. Typed decoding, where serde recurses through your types, is bounded by the same
//!   `max_depth`.
//! - **Allocation-capped**: a claimed length is checked against the `Limits` and against the
//!   bytes left before anything is reserved, and every heap byte a decode allocates is charged
//!   to `max_alloc_bytes` before it is requested. `Limits::default()` is what a server facing
//!   the internet should use.
//! - **Errors that say what, where and how deep**: `array length 4294967295 exceeds
//!   max_array_len 1048576 at byte 0, depth 0`.
//!
//! ```
//! use hardpack::{decode, encode, Decoder, ErrorKind, Limit, Limits, Value};
//!
//! let value = decode(&[0x92, 0x01, 0xa1, b'a'])?; // [1, "a"]
//! assert_eq!(value, Value::from(vec![Value::from(1u8), Value::from("a")]));
//! assert_eq!(value[1].as_str(), Some("a"));
//! assert_eq!(encode(&value)?, [0x92, 0x01, 0xa1, b'a']); // always the smallest form
//!
//! // An array claiming 4294967295 elements in five bytes is refused before any allocation.
//! let err = decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
//! assert_eq!(err.limit(), Some(Limit::ArrayLen));
//! assert_eq!(
//!     err.to_string(),
//!     "array length 4294967295 exceeds max_array_len 1048576 at byte 0, depth 0"
//! );
//!
//! // Limits are per decoder.
//! let shallow = Decoder::new(Limits::default().with(Limit::Depth, 1));
//! assert!(matches!(
//!     shallow.decode(&[0x91, 0x90]).unwrap_err().kind(),
//!     ErrorKind::LimitExceeded { limit: Limit::Depth, max: 1, claimed: 2 }
//! ));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! With the `serde` feature, your own types, under the same limits:
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Request {
//!     id: u64,
//!     method: String,
//!     params: hardpack::Value, // any document
//! }
//!
//! let request = Request { id: 7, method: "sum".into(), params: hardpack::msgpack!([1, 2]) };
//! let bytes = hardpack::to_vec(&request)?; // rmp-serde's format: a struct is an array
//! assert_eq!(hardpack::from_slice::<Request>(&bytes)?, request);
//!
//! // 100,000 nested arrays where `params` should be: refused at the depth limit.
//! let mut bomb = vec![0x93, 0x07, 0xa3, b's', b'u', b'm'];
//! bomb.extend(std::iter::repeat(0x91).take(100_000));
//! let err = hardpack::from_slice::<Request>(&bomb).unwrap_err();
//! assert_eq!(err.to_string(), "nesting depth 129 exceeds max_depth 128 at byte 133, depth 128");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With the `derive` feature, `#[derive(hardpack::Decode, hardpack::Encode)]` reads the same
//! types straight from the reader into locals, with no serde visitor between: the same bytes
//! (rmp-serde's), the same value or the same error at the same byte, under the same depth,
//! limits and budget (see `derive`). A type may derive both, and the two paths are fuzzed
//! against each other. Use serde for what only serde has (untagged, internally tagged or
//! flattened shapes, `Value` fields, a type from another crate); use the derive path for your
//! own structs and enums where encoding speed matters:
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! #[derive(hardpack::Decode, hardpack::Encode, serde::Serialize, Debug, PartialEq)]
//! enum Shape<'a> {
//!     Circle { r: f64 },
//!     Named(&'a str, Vec<(i32, i32)>),
//! }
//!
//! let shape = Shape::Named("square", vec![(0, 0), (0, 1), (1, 1), (1, 0)]);
//! let bytes = hardpack::derive::to_vec(&shape)?;
//! assert_eq!(bytes, hardpack::to_vec(&shape)?); // what serde writes, byte for byte
//! assert_eq!(hardpack::derive::from_slice::<Shape>(&bytes)?, shape);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Where to read on
//!
//! | module | what it holds |
//! |---|---|
//! | `decode` | `Decoder` and the free functions: owned `decode`, borrowed `decode_ref`, `validate`/`skip` (nothing built), strict mode, the `TokenReader` |
//! | `limits` | `Limits`: each limit, its default and why, and what the budget charges |
//! | `value` | `Value` and `ValueRef`: reading a document, building one, the `msgpack!` macro |
//! | `de`, `ser` | serde (feature `serde`): `from_slice`, `to_vec`, rmp-serde's wire format, depth and budget on the typed path |
//! | `derive` | `#[derive(Decode, Encode)]` (feature `derive`): the attributes, what it reads and writes, and its checks |
//! | `stream` | `StreamDecoder` for bytes that arrive over time, `io::Read` helpers, the tokio codec (feature `tokio`) |
//! | `encode` | `encode`: any value, any depth, in its smallest form |
//! | `error` | `Error`: kind, byte offset, depth |
//!
//! ## Features
//!
//! - `std` (default): `io::Read`/`BufRead` helpers, `From<HashMap>`. Without it the crate is
//!   `no_std` + `alloc`; `Error` implements `core::error::Error` either way.
//! - `serde`: typed decoding and encoding, wire-compatible with rmp-serde.
//! - `derive`: `#[derive(Decode, Encode)]`, the typed path without serde's visitors (it
//!   enables `serde`, whose leaf types it reads through).
//! - `tokio`: a `tokio_util` codec over the stream decoder.
//! - `rmpv`: conversion to and from `rmpv::Value`.
//!
//! ## What is still unbounded
//!
//! Encoding appends to a `Vec<u8>` whose growth is the caller's to bound (at most a few bytes
//! more than the input that produced a decoded value). Building values by hand is not
//! limited. What your own types allocate on the typed path is charged at `size_of` of each
//! element serde hands them (see `de`), and a collection may reserve up to serde's own cap
//! from a size hint before its elements arrive.
//!
//! A type that reads itself without consuming anything is out of any decoder's reach: a newtype
//! holding `Option<Box<Self>>` inside an internally tagged or untagged enum, or inside a
//! flattened struct, is read from serde's own buffer, which answers `Some` for any value but nil
//! and never comes back to hardpack, so an 8-byte document recurses until the stack overflows.
//! Read directly, the same newtype is refused at `max_depth`. `hardpack-check` finds such a
//! document for your types (`check/tests/endless.rs`).

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The repository's README examples compile and run as doctests (with every feature).
#![cfg_attr(all(doctest, feature = "serde", feature = "std"), doc = include_str!("../../README.md"))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::panic
    )
)]

extern crate alloc;

/// The `alloc` items the standard prelude would give; every module that allocates imports
/// them from here, so the crate reads the same with and without `std`.
#[allow(unused_imports)]
mod prelude {
    pub(crate) use alloc::boxed::Box;
    pub(crate) use alloc::format;
    pub(crate) use alloc::string::{String, ToString};
    pub(crate) use alloc::vec;
    pub(crate) use alloc::vec::Vec;
}

/// What the macros expand to; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use alloc::vec;
}

// The layers, each using only those above it: `wire` (cursor, headers read and written) and
// `limits`/`error` (plain configuration and errors) know no tree; `value` is the tree (its
// walk, assembler, drop) and calls no decoder; `decode` reads the wire into a tree under the
// limits; `encode` walks a tree onto the wire; `stream`, `de` and `ser` are surfaces on the
// same reader and writer.
mod invariant;
mod wire;

pub mod error;
pub mod limits;
pub mod timestamp;

pub mod value;

#[cfg(feature = "serde")]
pub mod de;
pub mod decode;
pub mod encode;
#[cfg(feature = "rmpv")]
#[path = "rmpv_conv.rs"]
pub mod rmpv;
#[cfg(feature = "serde")]
pub mod ser;
pub mod stream;

pub use decode::{decode, decode_prefix, decode_ref, validate, Decoder};
pub use encode::encode;
pub use error::{Error, ErrorKind};
pub use limits::{Limit, Limits};
pub use stream::StreamDecoder;
pub use value::{Value, ValueRef};
#[cfg(feature = "serde")]
pub use {de::from_slice, ser::to_vec};

/// The derive path: `#[derive(Decode, Encode)]`.
///
/// A derived [`Decode`](derive::Decode) reads each field straight from the reader into a
/// local. It is the serde path's decode without serde's visitors, not a decoder of its own:
/// every item goes through the same reader step (depth, the seven limits, the room check),
/// the budget is charged the same bytes at the same places (a struct's size at its header, a
/// collection's elements when the first is read), and the errors are serde's, at the same byte
/// and depth. A *plain* value (a number or a bool, or a struct or tuple of them read from an
/// array of exactly its fields, like a mesh's `Vector3`) is read whole from the bytes ahead,
/// with no call between its fields, when every check its headers would make passes (the
/// depth it reaches, its widest array, the room after it, its headers' charges, all known from
/// its type); anything else, a value that would fail a check included, takes the reader step.
/// A type that derives both decodes to the same value, or fails with the same error, on both
/// paths: the `derive_differential` fuzz target and `codec/tests/derive.rs` hold them to it. A derived [`Encode`](derive::Encode) writes what [`to_vec`] and
/// rmp-serde write by default: a struct as the array of its fields, a unit struct as an empty
/// array, a newtype as its content, a unit variant as its name, any other variant as a
/// one-entry map from its name to its content. A value whose encoding has a bound (numbers,
/// and structs, tuples, arrays and enums of them; not strs, collections, boxes or `with`
/// fields) is written straight into room reserved for its bound and cut back to what it
/// took, as are the elements of a sequence of them, a few hundred bytes at a time.
///
/// It derives for structs (named, tuple, newtype, unit) and enums (unit, newtype, tuple and
/// struct variants), generic ones too, with fields of the standard types (integers, floats,
/// `bool`, `char`, `String`, `&str` and `&[u8]` borrowed from the input, `Option`, `Box`,
/// `Vec`, `BTreeMap`, `HashMap`, tuples, arrays of a type with a `Default`) and of derived
/// types. A struct is read from an array or from a map of its field names (what
/// `rmp_serde::to_vec_named` writes; unknown keys are skipped), as serde's derive reads it.
/// `&[u8]` is written as a bin, the form it is read from (serde writes a `[u8]` as an array
/// of integers, which its own `&[u8]` does not read back: `serde_bytes`'s form is the one that
/// round-trips).
///
/// Attributes, on a field or a variant, each meaning what serde's of the same name means:
/// - `#[hardpack(rename = "name")]`: the name on the wire;
/// - `#[hardpack(default)]`: a field an array or a map leaves out is its `Default`;
/// - `#[hardpack(skip)]`: a field never written and read as its `Default`; a variant never
///   read (writing it is an error);
/// - `#[hardpack(with = "module")]`: a field read by `module::decode(de)` (a
///   `fn<'de, const STRICT: bool>(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>`) and
///   written by `module::encode(&value, out)`.
///
/// What serde's derive has and this one does not: untagged, internally and adjacently tagged
/// enums, `flatten`, `alias`, `deny_unknown_fields`, container attributes. Such a type stays
/// on the serde path (a derived type may hold it through `with`).
#[cfg(feature = "derive")]
pub mod derive {
    #[doc(hidden)]
    pub use crate::de::derive::__private;
    pub use crate::de::derive::{
        from_slice, to_vec, Decode, Encode, Entries, Fields, MapEntries, Variant,
    };
    pub use hardpack_derive::{Decode, Encode};
}
#[cfg(feature = "derive")]
pub use hardpack_derive::{Decode, Encode};
