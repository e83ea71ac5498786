//! Errors: what went wrong ([`ErrorKind`]), where (the byte offset of the item it is about) and
//! at what nesting depth.
//!
//! ```
//! use hardpack::{decode, ErrorKind};
//!
//! // An array of two, cut after one: the header already shows the input is too short.
//! let err = decode(&[0x92, 0x01]).unwrap_err();
//! assert_eq!(err.kind(), &ErrorKind::UnexpectedEnd { needed: 1 });
//! assert_eq!((err.offset(), err.depth()), (0, 0));
//! assert!(err.is_incomplete());
//! assert_eq!(
//!     err.to_string(),
//!     "unexpected end of input: at least 1 more bytes needed for the item at byte 0, depth 0"
//! );
//! ```
//!
//! `needed` is a lower bound on the bytes the document still needs (each item an open container
//! still expects needs one). [`Error::limit`] says which limit refused the input, if one did.
//! Encoding has its own error, [`EncodeError`]: a value built by hand can hold a str or array
//! longer than MessagePack can express; a decoded value always encodes.

use core::fmt;

use crate::limits::Limit;
use crate::wire::header::marker_name;

/// Why a timestamp extension (type -1) was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimestampError {
    /// The payload was not 4, 8 or 12 bytes long.
    Length(usize),
    /// The nanoseconds field was above 999,999,999.
    Nanoseconds(u32),
}

/// What went wrong, without where. The variants are grouped by where an error comes from:
/// the input's bytes, the limits and the allocator, strict mode, typed decoding, streams.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    // The input is not MessagePack.
    /// The input ended early. `needed` is a lower bound on how many more bytes the document
    /// needs; it is exact when the input was cut inside the last item.
    UnexpectedEnd {
        /// At least this many more bytes are needed.
        needed: usize,
    },
    /// The marker byte 0xc1, which MessagePack reserves and never uses.
    ReservedMarker,
    /// A str whose bytes are not UTF-8.
    InvalidUtf8 {
        /// How many bytes of the str are valid UTF-8 before the first invalid sequence.
        valid_up_to: usize,
    },
    /// A timestamp extension (type -1) with a malformed payload.
    InvalidTimestamp(TimestampError),
    /// A complete value was followed by more bytes (only [`decode`](fn@crate::decode) and
    /// [`Decoder::decode`](crate::Decoder::decode) reject this; the prefix forms return them).
    TrailingBytes {
        /// How many bytes follow the value.
        count: usize,
    },
    // The input is over a limit, or memory ran out.
    /// A claimed size exceeds a configured limit.
    LimitExceeded {
        /// Which limit.
        limit: Limit,
        /// Its configured value.
        max: usize,
        /// What the input claimed (for `max_alloc_bytes`: the total the decode would reach).
        claimed: usize,
    },
    /// The allocator refused memory that the limits allowed.
    OutOfMemory {
        /// The size of the refused request.
        bytes: usize,
    },
    // Strict mode.
    /// Strict mode: an item not in the one form hardpack's encoder writes for it (a longer
    /// length or integer form than needed, a non-negative integer in a signed form, a
    /// timestamp in a longer form than its value needs).
    NonCanonical {
        /// The marker byte the item is written with.
        marker: u8,
        /// The marker byte of its smallest form.
        smallest: u8,
    },
    /// Strict mode: a map key that is not a str.
    NonStrKey,
    /// Strict mode: a map key equal to an earlier key of the same map (found when the map
    /// ends; the error's offset is the later key's).
    DuplicateKey {
        /// Byte offset of the earlier key.
        first_offset: usize,
    },
    // Typed decoding (feature `serde`).
    /// Typed decoding: the input's shape does not fit the type (a str where an integer is
    /// expected, a missing field, an unknown variant...), or a `Deserialize` implementation
    /// refused it; serde's message says which.
    Custom {
        /// What serde or the type said.
        message: alloc::string::String,
    },
    // Streaming and I/O.
    /// Streaming: the value being read needs more bytes held at once than the stream's
    /// `max_buffer_bytes` allows (found as soon as a header or the bytes that arrived imply
    /// it; the error's offset is the item that showed it).
    BufferLimit {
        /// The stream's `max_buffer_bytes`.
        max: usize,
        /// At least this many bytes would have to be held for the value.
        needed: usize,
    },
    /// Reading the input failed (streaming and `from_read`); the offset is how far the input
    /// had been read.
    Io {
        /// The I/O error's message.
        message: alloc::string::String,
    },
}

/// A decoding error: its [`ErrorKind`], the byte offset of the item it is about and the
/// nesting depth there (0 for the top-level value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    depth: usize,
}

impl Error {
    pub(crate) const fn new(kind: ErrorKind, offset: usize, depth: usize) -> Self {
        Error {
            kind,
            offset,
            depth,
        }
    }

    /// The same error, `by` bytes further on (for an error found in a slice that starts at
    /// byte `by` of a longer input).
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        self.offset = self.offset.saturating_add(by);
        self
    }

    /// An I/O error, at byte `at` of the input.
    #[cfg(feature = "std")]
    pub(crate) fn io(e: &std::io::Error, at: usize) -> Self {
        Error::new(
            ErrorKind::Io {
                message: alloc::string::ToString::to_string(e),
            },
            at,
            0,
        )
    }

    /// What went wrong.
    pub const fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Byte offset of the item the error is about (for trailing bytes: where they start).
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Containers open around the item the error is about.
    pub const fn depth(&self) -> usize {
        self.depth
    }

    /// `Some(n)` when the input ended early and at least `n` more bytes are needed.
    pub const fn needed(&self) -> Option<usize> {
        match self.kind {
            ErrorKind::UnexpectedEnd { needed } => Some(needed),
            _ => None,
        }
    }

    /// The limit that rejected the input, if a limit did.
    pub const fn limit(&self) -> Option<Limit> {
        match self.kind {
            ErrorKind::LimitExceeded { limit, .. } => Some(limit),
            _ => None,
        }
    }

    /// True when the input ended early (more bytes could make it valid).
    pub const fn is_incomplete(&self) -> bool {
        matches!(self.kind, ErrorKind::UnexpectedEnd { .. })
    }

    /// True when a configured limit rejected the input.
    pub const fn is_limit(&self) -> bool {
        matches!(self.kind, ErrorKind::LimitExceeded { .. })
    }

    /// A short stable name for the kind, e.g. `limit_exceeded`, for logs and JSON.
    pub const fn kind_name(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnexpectedEnd { .. } => "unexpected_end",
            ErrorKind::ReservedMarker => "reserved_marker",
            ErrorKind::InvalidUtf8 { .. } => "invalid_utf8",
            ErrorKind::InvalidTimestamp(_) => "invalid_timestamp",
            ErrorKind::LimitExceeded { .. } => "limit_exceeded",
            ErrorKind::TrailingBytes { .. } => "trailing_bytes",
            ErrorKind::OutOfMemory { .. } => "out_of_memory",
            ErrorKind::NonCanonical { .. } => "non_canonical",
            ErrorKind::NonStrKey => "non_str_key",
            ErrorKind::Custom { .. } => "custom",
            ErrorKind::DuplicateKey { .. } => "duplicate_key",
            ErrorKind::BufferLimit { .. } => "buffer_limit",
            ErrorKind::Io { .. } => "io",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (at, depth) = (self.offset, self.depth);
        match &self.kind {
            ErrorKind::UnexpectedEnd { needed } => write!(
                f,
                "unexpected end of input: at least {needed} more bytes needed for the item at byte {at}, depth {depth}"
            ),
            ErrorKind::ReservedMarker => {
                write!(f, "reserved marker 0xc1 at byte {at}, depth {depth}")
            }
            ErrorKind::InvalidUtf8 { valid_up_to } => write!(
                f,
                "invalid UTF-8 in str at byte {at}, depth {depth} (valid for its first {valid_up_to} bytes)"
            ),
            ErrorKind::InvalidTimestamp(TimestampError::Length(len)) => write!(
                f,
                "invalid timestamp at byte {at}, depth {depth}: payload of {len} bytes (must be 4, 8 or 12)"
            ),
            ErrorKind::InvalidTimestamp(TimestampError::Nanoseconds(ns)) => write!(
                f,
                "invalid timestamp at byte {at}, depth {depth}: nanoseconds {ns} exceed 999999999"
            ),
            ErrorKind::LimitExceeded {
                limit,
                max,
                claimed,
            } => write!(
                f,
                "{} {claimed} exceeds {limit} {max} at byte {at}, depth {depth}",
                limit.measures()
            ),
            ErrorKind::TrailingBytes { count } => {
                write!(f, "{count} trailing bytes after the value, starting at byte {at}")
            }
            ErrorKind::OutOfMemory { bytes } => write!(
                f,
                "the allocator refused {bytes} bytes at byte {at}, depth {depth}"
            ),
            ErrorKind::NonCanonical { marker, smallest } => write!(
                f,
                "strict: the item at byte {at}, depth {depth} is a {} (0x{marker:02x}); its smallest form is a {} (0x{smallest:02x})",
                marker_name(*marker),
                marker_name(*smallest)
            ),
            ErrorKind::NonStrKey => {
                write!(f, "strict: the map key at byte {at}, depth {depth} is not a str")
            }
            ErrorKind::Custom { message } => write!(f, "{message} at byte {at}, depth {depth}"),
            ErrorKind::DuplicateKey { first_offset } => write!(
                f,
                "strict: the map key at byte {at}, depth {depth} repeats the key at byte {first_offset}"
            ),
            ErrorKind::BufferLimit { max, needed } => write!(
                f,
                "the value needs at least {needed} bytes held at once, more than max_buffer_bytes {max}, seen at byte {at}, depth {depth}"
            ),
            ErrorKind::Io { message } => {
                write!(f, "reading the input failed at byte {at}: {message}")
            }
        }
    }
}

impl core::error::Error for Error {}

/// What made a [`Value`](crate::Value) impossible to encode. Only values built by hand can be
/// like this: everything a decoder produced encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// A str, bin, ext payload, array or map longer than 4,294,967,295, which the format's
    /// 32-bit length fields cannot express.
    TooLong {
        /// What was too long.
        of: LengthOf,
        /// Its length.
        len: usize,
    },
    /// A value's `Serialize` implementation reported an error, or asked for what MessagePack
    /// cannot hold (the message says which).
    Custom,
}

/// The kinds of value whose length MessagePack writes in a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LengthOf {
    /// A str's bytes.
    Str,
    /// A bin's bytes.
    Bin,
    /// An ext's payload bytes.
    Ext,
    /// An array's elements.
    Array,
    /// A map's entries.
    Map,
}

impl LengthOf {
    const fn name(self) -> &'static str {
        match self {
            LengthOf::Str => "str",
            LengthOf::Bin => "bin",
            LengthOf::Ext => "ext",
            LengthOf::Array => "array",
            LengthOf::Map => "map",
        }
    }
}

/// `len` as a header's 32-bit length field, or the error for a `len` MessagePack cannot
/// express. Inlined into the typed serializer, which is compiled in the caller's crate: out of
/// line, each container and str paid a call returning through memory.
#[inline]
pub(crate) fn wire_len(of: LengthOf, len: usize) -> Result<u32, EncodeError> {
    u32::try_from(len).map_err(|_| EncodeError::too_long(of, len))
}

/// An encoding error: a [`Value`](crate::Value) that MessagePack cannot represent.
///
/// One pointer wide: every `Serialize` call returns a `Result` of it, which a larger error
/// would send through memory on the way back from each field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(alloc::boxed::Box<EncodeErrorDetail>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct EncodeErrorDetail {
    kind: EncodeErrorKind,
    /// What a `Serialize` implementation (or the serializer) said, for `Custom`.
    message: Option<alloc::string::String>,
}

impl EncodeError {
    #[cold]
    pub(crate) fn too_long(of: LengthOf, len: usize) -> Self {
        EncodeError(alloc::boxed::Box::new(EncodeErrorDetail {
            kind: EncodeErrorKind::TooLong { of, len },
            message: None,
        }))
    }

    /// An error with a message, from a `Serialize` implementation or the serializer.
    #[cfg(feature = "serde")]
    #[cold]
    pub(crate) fn custom(message: alloc::string::String) -> Self {
        EncodeError(alloc::boxed::Box::new(EncodeErrorDetail {
            kind: EncodeErrorKind::Custom,
            message: Some(message),
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.kind {
            EncodeErrorKind::TooLong { of, len } => write!(
                f,
                "{} of length {len} cannot be encoded: MessagePack lengths are at most 4294967295",
                of.name()
            ),
            EncodeErrorKind::Custom => {
                f.write_str(self.0.message.as_deref().unwrap_or("serialization failed"))
            }
        }
    }
}

impl core::error::Error for EncodeError {}
