//! Errors: what went wrong, where (byte offset) and at what nesting depth.

use std::fmt;

/// One of the configurable limits of [`Limits`](crate::Limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// `max_depth`: containers nested inside each other.
    Depth,
    /// `max_array_len`: elements of one array.
    ArrayLen,
    /// `max_map_len`: entries of one map.
    MapLen,
    /// `max_str_len`: bytes of one str.
    StrLen,
    /// `max_bin_len`: bytes of one bin.
    BinLen,
    /// `max_ext_len`: payload bytes of one ext.
    ExtLen,
    /// `max_alloc_bytes`: heap bytes one decode may allocate in total.
    AllocBytes,
}

impl Limit {
    /// Every limit, in the order they are documented.
    pub const ALL: [Limit; 7] = [
        Limit::Depth,
        Limit::ArrayLen,
        Limit::MapLen,
        Limit::StrLen,
        Limit::BinLen,
        Limit::ExtLen,
        Limit::AllocBytes,
    ];

    /// The field name in [`Limits`](crate::Limits), e.g. `max_array_len`.
    pub const fn name(self) -> &'static str {
        match self {
            Limit::Depth => "max_depth",
            Limit::ArrayLen => "max_array_len",
            Limit::MapLen => "max_map_len",
            Limit::StrLen => "max_str_len",
            Limit::BinLen => "max_bin_len",
            Limit::ExtLen => "max_ext_len",
            Limit::AllocBytes => "max_alloc_bytes",
        }
    }

    /// What the limit measures, as used in messages.
    const fn measures(self) -> &'static str {
        match self {
            Limit::Depth => "nesting depth",
            Limit::ArrayLen => "array length",
            Limit::MapLen => "map length",
            Limit::StrLen => "str length",
            Limit::BinLen => "bin length",
            Limit::ExtLen => "ext length",
            Limit::AllocBytes => "allocated bytes",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Limit {
    type Err = String;
    /// Parses a field name such as `max_depth` (a `--max-depth` style spelling works too).
    fn from_str(s: &str) -> Result<Self, String> {
        let wanted = s.trim_start_matches("--").replace('-', "_");
        Limit::ALL
            .into_iter()
            .find(|l| l.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Limit::ALL.iter().map(|l| l.name()).collect();
                format!("unknown limit {s:?}; expected one of {}", names.join(", "))
            })
    }
}

/// Why a timestamp extension (type -1) was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimestampError {
    /// The payload was not 4, 8 or 12 bytes long.
    Length(usize),
    /// The nanoseconds field was above 999,999,999.
    Nanoseconds(u32),
}

/// What went wrong, without where.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
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
    /// A claimed size exceeds a configured limit.
    LimitExceeded {
        /// Which limit.
        limit: Limit,
        /// Its configured value.
        max: usize,
        /// What the input claimed (for `max_alloc_bytes`: the total the decode would reach).
        claimed: usize,
    },
    /// A complete value was followed by more bytes (only [`decode`](crate::decode) and
    /// [`Decoder::decode`](crate::Decoder::decode) reject this; the prefix forms return them).
    TrailingBytes {
        /// How many bytes follow the value.
        count: usize,
    },
    /// The allocator refused memory that the limits allowed.
    OutOfMemory {
        /// The size of the refused request.
        bytes: usize,
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
        }
    }
}

impl std::error::Error for Error {}

/// A [`Value`](crate::Value) that MessagePack cannot represent. Only values built by hand can
/// be like this: everything a decoder produced encodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    what: &'static str,
    len: usize,
}

impl EncodeError {
    pub(crate) const fn too_long(what: &'static str, len: usize) -> Self {
        EncodeError { what, len }
    }

    /// The length that does not fit the format's 32-bit length field.
    pub const fn length(&self) -> usize {
        self.len
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of length {} cannot be encoded: MessagePack lengths are at most 4294967295",
            self.what, self.len
        )
    }
}

impl std::error::Error for EncodeError {}
