//! Decoding: [`Decoder`] with its [`Limits`] and options, and the surfaces that read a document.
//!
//! Every surface is fed by one reader, where each check lives once (limits, the room left,
//! depth, UTF-8, timestamps, strict mode's forms), so every surface gives the same verdict, with
//! the same error, offset and depth, on the same input:
//!
//! | surface | what it gives | what it allocates |
//! |---|---|---|
//! | [`Decoder::decode`], [`decode`] | an owned [`Value`] | the tree, charged to `max_alloc_bytes` |
//! | [`Decoder::decode_ref`], [`decode_ref`] | a [`ValueRef`](crate::ValueRef) borrowing strs, bins and exts from the input | one flat tape of 24-byte items |
//! | [`Decoder::validate`], [`validate`], [`skip`] | the verdict and [`DecodeStats`], nothing built | nothing when `max_depth` ≤ [`INLINE_DEPTH`] |
//! | [`TokenReader`] | `(offset, Token)` pairs, values back to back | one count per open container |
//! | `Decoder::from_slice` (feature `serde`) | your type, see the `de` module | what your type allocates, charged |
//!
//! The free functions use `Limits::default()`; `decode`, `validate` and `from_slice` refuse bytes
//! after the value, the `_prefix` forms and `skip` return how many bytes it took.
//!
//! ```
//! use hardpack::{decode::DecodeStats, Decoder, Limit, Limits};
//!
//! let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, 1 << 20));
//! let bytes = [0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0x92, 0xc3, 0xc2]; // {"a": 1, "b": [true, false]}
//! let value = decoder.decode(&bytes)?;
//! assert_eq!(value["b"][0].as_bool(), Some(true));
//!
//! // The borrowed tree: strs point into `bytes`.
//! let doc = decoder.decode_ref(&bytes)?;
//! assert_eq!(doc.root().get("a").and_then(|n| n.as_u64()), Some(1));
//! assert!(doc == value);
//!
//! // The verdict alone, and what a decode would charge.
//! let DecodeStats { consumed, charged_bytes } = decoder.validate(&bytes)?;
//! assert_eq!(consumed, bytes.len());
//! assert!(charged_bytes > 0);
//! # Ok::<(), hardpack::Error>(())
//! ```
//!
//! ## As a guard
//!
//! `validate` checks everything `decode` checks without building anything, so it can stand in
//! front of a decoder that recurses or trusts lengths: 100,000 nested arrays are refused at byte
//! 128. The one verdict it cannot give is [`ErrorKind::OutOfMemory`]:
//! it asks the allocator for nothing.
//!
//! ## Strict mode
//!
//! [`Decoder::strict`] (off by default) also refuses an item not in the one form the encoder
//! writes for it, a map key that is not a str, and a key that repeats an earlier key of the same
//! map: a document strict mode accepts re-encodes byte for byte, and two readers (one keeping
//! the first of two equal keys, one the last) can no longer disagree about it. It works on every
//! surface; the keys of open maps are charged; keys are compared by sorting when their map ends,
//! so no input makes the check worse than n log n.
//!
//! ## Invalid UTF-8
//!
//! A str that is not UTF-8 is refused by default. [`InvalidUtf8::Replace`] replaces each invalid
//! sequence with U+FFFD on the owned decode (the growth is charged first). The borrowed and
//! typed surfaces always refuse: a borrowed str cannot be repaired.

mod borrowed;
pub(crate) mod budget;
pub(crate) mod nesting;
pub(crate) mod read;
pub(crate) mod strict;
mod tokens;
mod validate;

pub use crate::value::token::Token;
pub use borrowed::{decode_ref, decode_ref_prefix};
pub use tokens::TokenReader;
pub use validate::{skip, validate, INLINE_DEPTH};
pub(crate) use validate::{Framed, Framer};

use budget::Builder;
use read::Reader;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::value::Value;

/// What to do with a str whose bytes are not UTF-8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidUtf8 {
    /// Reject the input with [`ErrorKind::InvalidUtf8`].
    #[default]
    Reject,
    /// Replace each invalid sequence with U+FFFD (which can triple the str's size; the
    /// tripled size is charged to `max_alloc_bytes` first, and the replaced str is held to
    /// `max_str_len`).
    Replace,
}

/// A decoder with its [`Limits`] and options. Cheap to build, reusable, `Send + Sync`.
#[derive(Clone, Debug, Default)]
pub struct Decoder {
    limits: Limits,
    invalid_utf8: InvalidUtf8,
    strict: bool,
}

/// Facts about one successful decode, from [`Decoder::decode_with_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Bytes the value took.
    pub consumed: usize,
    /// Heap bytes charged to `max_alloc_bytes`.
    pub charged_bytes: usize,
}

impl Decoder {
    /// A decoder with these limits.
    pub fn new(limits: Limits) -> Self {
        Decoder {
            limits,
            invalid_utf8: InvalidUtf8::Reject,
            strict: false,
        }
    }

    /// The same decoder in strict mode (off by default), for documents two parsers must read
    /// alike. Every surface (decode, decode_ref, validate, skip) then also refuses:
    ///
    /// - an item not in the one form hardpack's encoder writes for it
    ///   ([`ErrorKind::NonCanonical`], with the marker found and the smallest form's): a length or integer in a longer form than it needs, a
    ///   non-negative integer in a signed form, a timestamp in a longer form than its value
    ///   needs. (`F32` and `F64` are distinct values here, so a float's width is part of the
    ///   value, never an encoding choice.) So an accepted document re-encodes byte for byte.
    /// - a map key that is not a str ([`ErrorKind::NonStrKey`]);
    /// - a key that repeats an earlier key of the same map ([`ErrorKind::DuplicateKey`],
    ///   found when the map ends, at the later key): a reader that keeps the first of two
    ///   equal keys ([`Map::get`](crate::value::Map::get)) and one that keeps the last (most serde
    ///   maps) can no longer disagree.
    ///
    /// What it keeps (the open containers, the keys of open maps: 32 bytes a key) is charged
    /// to `max_alloc_bytes`; comparing keys sorts them, so no input makes it slower than
    /// n log n.
    ///
    /// ```
    /// use hardpack::{Decoder, ErrorKind};
    ///
    /// let strict = Decoder::default().strict();
    /// // {"a": 1, "a": 2}
    /// let err = strict.decode(&[0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02]).unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::DuplicateKey { first_offset: 1 });
    /// assert_eq!((err.offset(), err.depth()), (4, 1));
    /// // 1 as a uint 16
    /// let err = strict.decode(&[0xcd, 0x00, 0x01]).unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::NonCanonical { marker: 0xcd, smallest: 0x01 });
    /// assert!(Decoder::default().decode(&[0xcd, 0x00, 0x01]).is_ok());
    /// ```
    #[must_use]
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// True in strict mode.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Reads one value of `input` into `sink` with this decoder's limits and mode; the bytes
    /// it took.
    #[inline(always)]
    fn read<'a, S: read::Sink<'a>>(
        &self,
        input: &'a [u8],
        invalid_utf8: InvalidUtf8,
        sink: &mut S,
    ) -> Result<usize, Error> {
        if self.strict {
            return self.read_strict(input, invalid_utf8, sink);
        }
        Reader::new(input, &self.limits, invalid_utf8).value(sink)
    }

    /// [`read`](Self::read) in strict mode, kept out of line: inlined beside the lenient
    /// loop, it takes registers and code layout from the lenient path.
    #[inline(never)]
    pub(super) fn read_strict<'a, S: read::Sink<'a>>(
        &self,
        input: &'a [u8],
        invalid_utf8: InvalidUtf8,
        sink: &mut S,
    ) -> Result<usize, Error> {
        Reader::new(input, &self.limits, invalid_utf8)
            .value_strict(sink, &mut strict::Strict::new())
    }

    /// The same decoder with another policy for invalid UTF-8 in str.
    #[must_use]
    pub fn with_invalid_utf8(mut self, policy: InvalidUtf8) -> Self {
        self.invalid_utf8 = policy;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The policy for invalid UTF-8 in str.
    pub fn invalid_utf8(&self) -> InvalidUtf8 {
        self.invalid_utf8
    }

    /// Decodes exactly one value; bytes after it are an error.
    pub fn decode(&self, input: &[u8]) -> Result<Value, Error> {
        let (value, stats) = self.decode_with_stats(input)?;
        refuse_trailing(input, stats.consumed)?;
        Ok(value)
    }

    /// Decodes the value at the start of `input`; returns it and the bytes it took.
    pub fn decode_prefix(&self, input: &[u8]) -> Result<(Value, usize), Error> {
        self.decode_with_stats(input)
            .map(|(value, stats)| (value, stats.consumed))
    }

    /// Like [`decode_prefix`](Self::decode_prefix), with what the decode charged.
    pub fn decode_with_stats(&self, input: &[u8]) -> Result<(Value, DecodeStats), Error> {
        let mut builder = Builder::new(self.limits.max_alloc_bytes);
        let consumed = self.read(input, self.invalid_utf8, &mut builder)?;
        let value = builder.take_finished().unwrap_or_else(|| {
            crate::invariant::broken("a finished decode without its value");
            Value::Nil
        });
        let stats = DecodeStats {
            consumed,
            charged_bytes: builder.charged(),
        };
        Ok((value, stats))
    }
}

/// The error for bytes after a complete value of `consumed` bytes, if there are any.
fn refuse_trailing(input: &[u8], consumed: usize) -> Result<(), Error> {
    if consumed < input.len() {
        return Err(Error::new(
            ErrorKind::TrailingBytes {
                count: input.len().saturating_sub(consumed),
            },
            consumed,
            0,
        ));
    }
    Ok(())
}

/// Decodes exactly one value with `Limits::default()`; bytes after it are an error.
pub fn decode(input: &[u8]) -> Result<Value, Error> {
    Decoder::default().decode(input)
}

/// Decodes the value at the start of `input` with `Limits::default()`; returns it and the
/// bytes it took.
pub fn decode_prefix(input: &[u8]) -> Result<(Value, usize), Error> {
    Decoder::default().decode_prefix(input)
}
