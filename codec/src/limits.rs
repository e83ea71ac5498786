//! Per-decoder limits on what hostile input can make a decoder do.
//!
//! | limit | default | why |
//! |---|---|---|
//! | `max_depth` | 128 | real documents rarely nest past 20; serde_json's limit |
//! | `max_array_len` | 1,048,576 | 24 MiB of `Value`s |
//! | `max_map_len` | 262,144 | a map entry is two values |
//! | `max_str_len`, `max_bin_len`, `max_ext_len` | 16 MiB each | |
//! | `max_alloc_bytes` | 64 MiB | every heap byte one decode takes |
//!
//! A claimed length is checked against its limit, then against the bytes left: every child needs
//! a byte, and the children that all open containers still expect must fit together. Only then is
//! anything reserved (exactly the claimed count), after its bytes are charged to
//! `max_alloc_bytes`. So a decode never holds more than `max_alloc_bytes`, and the reservations of
//! all open containers add up to at most one `Value` (24 bytes) per input byte left.
//!
//! ```
//! use hardpack::{Decoder, Limit, Limits};
//!
//! let limits = Limits::default()
//!     .with(Limit::Depth, 16)
//!     .with(Limit::AllocBytes, 1 << 20);
//! assert_eq!(limits.max_depth, 16);
//! let decoder = Decoder::new(limits);
//! let err = decoder.decode(&[0xdc, 0xff, 0xff]).unwrap_err(); // 65535 elements, 3 bytes
//! assert!(err.is_incomplete()); // the room check: there cannot be enough bytes
//! ```

use core::fmt;

/// One of the configurable limits of [`Limits`].
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

    /// The field name in [`Limits`], e.g. `max_array_len`.
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

    /// What the limit measures, as used in messages and reports: `nesting depth`,
    /// `array length`, ...
    pub const fn measures(self) -> &'static str {
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

impl Limit {
    /// True for the limits measured in bytes (str, bin, ext lengths and the allocation
    /// budget); the others count items or levels.
    pub const fn counts_bytes(self) -> bool {
        matches!(
            self,
            Limit::StrLen | Limit::BinLen | Limit::ExtLen | Limit::AllocBytes
        )
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Limits on nesting, claimed lengths and total allocation for one decode.
///
/// `Limits::default()` is meant for a server that decodes input from the internet. Every
/// field can be set directly, or by [`Limit`] with [`Limits::set`] / [`Limits::with`].
///
/// What is charged against `max_alloc_bytes`: every byte the decoded value owns (str, bin and
/// ext payloads; `size_of::<Value>()` per array element, twice that per map entry), the
/// decoder's own work stacks, and a reservation per non-empty container for the traversal
/// stack that dropping it may need (see [`DROP_RESERVE_PER_CONTAINER`](crate::value::DROP_RESERVE_PER_CONTAINER)). Charges are made before
/// the memory is requested, so a decode never holds more heap than `max_alloc_bytes`
/// (measured as requested bytes; allocator bookkeeping is not counted).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// Containers nested inside each other; a top-level array is depth 1. Default 128:
    /// real documents rarely pass 20, and 128 is what serde_json allows.
    pub max_depth: usize,
    /// Elements of one array. Default 1,048,576 (24 MiB of `Value`s).
    pub max_array_len: usize,
    /// Entries of one map. Default 262,144: a map entry costs two values, and request
    /// objects with more keys than that are not requests.
    pub max_map_len: usize,
    /// Bytes of one str. Default 16 MiB.
    pub max_str_len: usize,
    /// Bytes of one bin. Default 16 MiB.
    pub max_bin_len: usize,
    /// Payload bytes of one ext. Default 16 MiB.
    pub max_ext_len: usize,
    /// Heap bytes one decode may allocate in total. Default 64 MiB: with at least one input
    /// byte per element, a document must be megabytes long to come near it.
    pub max_alloc_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_array_len: 1 << 20,
            max_map_len: 1 << 18,
            max_str_len: 16 << 20,
            max_bin_len: 16 << 20,
            max_ext_len: 16 << 20,
            max_alloc_bytes: 64 << 20,
        }
    }
}

impl Limits {
    /// Every limit at `usize::MAX`: only the input's own size bounds the decode. For trusted
    /// input and for measuring what the limits cost.
    pub const fn unlimited() -> Self {
        Limits {
            max_depth: usize::MAX,
            max_array_len: usize::MAX,
            max_map_len: usize::MAX,
            max_str_len: usize::MAX,
            max_bin_len: usize::MAX,
            max_ext_len: usize::MAX,
            max_alloc_bytes: usize::MAX,
        }
    }

    /// The value of one limit.
    pub const fn get(&self, limit: Limit) -> usize {
        match limit {
            Limit::Depth => self.max_depth,
            Limit::ArrayLen => self.max_array_len,
            Limit::MapLen => self.max_map_len,
            Limit::StrLen => self.max_str_len,
            Limit::BinLen => self.max_bin_len,
            Limit::ExtLen => self.max_ext_len,
            Limit::AllocBytes => self.max_alloc_bytes,
        }
    }

    /// Sets one limit.
    pub fn set(&mut self, limit: Limit, value: usize) {
        let field = match limit {
            Limit::Depth => &mut self.max_depth,
            Limit::ArrayLen => &mut self.max_array_len,
            Limit::MapLen => &mut self.max_map_len,
            Limit::StrLen => &mut self.max_str_len,
            Limit::BinLen => &mut self.max_bin_len,
            Limit::ExtLen => &mut self.max_ext_len,
            Limit::AllocBytes => &mut self.max_alloc_bytes,
        };
        *field = value;
    }

    /// Returns these limits with one of them changed.
    #[must_use]
    pub fn with(mut self, limit: Limit, value: usize) -> Self {
        self.set(limit, value);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_measured_in_bytes_are_the_lengths_of_bytes_and_the_budget() {
        let in_bytes: Vec<Limit> = Limit::ALL
            .into_iter()
            .filter(|l| l.counts_bytes())
            .collect();
        assert_eq!(
            in_bytes,
            [
                Limit::StrLen,
                Limit::BinLen,
                Limit::ExtLen,
                Limit::AllocBytes
            ]
        );
    }
}
