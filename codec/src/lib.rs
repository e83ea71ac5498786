//! # hardpack
//!
//! A MessagePack codec that no input can knock over.
//!
//! - **Bounds-checked**: every read goes through a cursor that reports how many bytes were
//!   missing; there is no `unsafe` and no panicking index in the crate.
//! - **Stack-free**: decoding, encoding, cloning, comparing, printing and dropping a
//!   [`Value`] walk an explicit heap stack; input cannot make the native stack grow.
//! - **Allocation-capped**: claimed lengths are checked against [`Limits`] and against the
//!   bytes left before anything is reserved, and every byte the decode allocates is charged
//!   to `max_alloc_bytes` before it is requested.
//!
//! ```
//! use hardpack::{decode, encode, Decoder, ErrorKind, Limit, Limits, Value};
//!
//! let value = decode(&[0x92, 0x01, 0xa1, b'a'])?;
//! assert_eq!(value, Value::from(vec![Value::from(1u8), Value::from("a")]));
//! assert_eq!(encode(&value)?, [0x92, 0x01, 0xa1, b'a']);
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
//! let strict = Decoder::new(Limits::default().with(Limit::Depth, 1));
//! assert!(matches!(
//!     strict.decode(&[0x91, 0x90]).unwrap_err().kind(),
//!     ErrorKind::LimitExceeded { limit: Limit::Depth, max: 1, claimed: 2 }
//! ));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## `no_std`
//! With `default-features = false` the crate is `no_std` + `alloc` (CI builds it for
//! `thumbv7em-none-eabihf`). The `std` feature (on by default) adds `From<HashMap>` for
//! values; `Error` implements `core::error::Error` either way.
//!
//! ## What is still unbounded
//! Encoding appends to a `Vec<u8>` whose growth is the caller's to bound (it is at most a
//! few bytes more than the input that produced a decoded value). Building `Value`s by hand is
//! not limited. `Drop` of a value may allocate a traversal stack of up to
//! [`DROP_RESERVE_PER_CONTAINER`] bytes per nested container; decoding charges that in advance.

#![cfg_attr(not(any(feature = "std", test)), no_std)]
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
// limits; `encode` walks a tree onto the wire.
mod invariant;
mod wire;

mod error;
mod limits;
mod timestamp;

mod value;

mod decode;
mod encode;
#[cfg(feature = "rmpv")]
mod rmpv_conv;
mod stream;
#[cfg(feature = "serde")]
mod typed;

pub use decode::{
    decode, decode_prefix, decode_ref, decode_ref_prefix, skip, validate, DecodeStats, Decoder,
    InvalidUtf8, TokenReader, INLINE_DEPTH,
};
pub use encode::{encode, encode_into};
pub use error::{EncodeError, EncodeErrorKind, Error, ErrorKind, LengthOf, TimestampError};
pub use limits::{Limit, Limits};
#[cfg(feature = "rmpv")]
pub use rmpv_conv::{from_rmpv, to_rmpv};
#[cfg(feature = "tokio")]
pub use stream::Codec;
#[cfg(all(feature = "tokio", feature = "serde"))]
pub use stream::TypedCodec;
pub use stream::{default_max_buffer_bytes, StreamDecoder, BUFFER_MARGIN};
#[cfg(feature = "std")]
pub use stream::{read_value, ReadValues};
pub use timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
#[cfg(feature = "serde")]
pub use typed::{
    from_slice, to_vec, to_vec_named, Compound, DeError, Deserializer, Serializer, EXT_STRUCT_NAME,
    HINT_ELEMENT_BYTES, SERIALIZE_MAX_DEPTH,
};
#[cfg(all(feature = "serde", feature = "std"))]
pub use typed::{to_writer, TO_WRITER_CHUNK};
pub use value::{
    Array, Ext, Index, Integer, Map, MapIndex, Node, Shape, Str, Token, TryFromValueError, Value,
    ValueBuilder, ValueRef, DROP_RESERVE_PER_CONTAINER,
};
