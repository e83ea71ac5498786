//! The derive path: what `#[derive(Decode, Encode)]` generates code against.
//!
//! A derived `Decode` reads its fields straight from the [`Deserializer`] into locals, with
//! no visitor between the reader and the type. It is not a second decoder: an item is read
//! by the same reader step as on the serde path (depth, the seven limits, the room check),
//! the budget is charged the same bytes at the same places, and each container is entered
//! and left as the serde path enters and leaves it, so a document decodes to the same value,
//! or fails with the same error at the same offset, on both paths. Leaves (integers, floats,
//! strs, bytes, `()`) are read by their serde `Deserialize` on the same deserializer: one
//! definition of each leaf's forms and messages.
//!
//! Shortcuts, for speed, each taken outside strict mode only and only where every check the
//! reader step would make passes; anything else, a value that would fail a check included,
//! is read as above, so the errors are the general read's:
//! - a *plain* value (a number or a bool, or a struct or tuple of plain values read from an
//!   array of exactly its fields) is read whole from the bytes ahead
//!   ([`Decode::peek_plain`]), with no call between its fields, when the depth it reaches,
//!   its widest array against `max_array_len`, the room after it and its headers' charges,
//!   all known from its type ([`Plain`]), pass; a sequence of `u8` or `bool` many elements
//!   at a time ([`Decode::peek_plain_run`]);
//! - an array header (a `Vec`'s, a struct's) whose length, room and depth pass is read by a
//!   peek of its own;
//! - a unit variant's name is compared with the variants' where it lies (a str equal to a
//!   name needs no UTF-8 check), and an `Option`'s nil is stepped over.
//!
//! The encoding is [`Serializer`](crate::ser::Serializer)'s, byte for byte: rmp-serde's
//! default (a struct as the array of its fields, an enum's unit variant as its name and
//! every other variant as a one-entry map from its name).

use crate::prelude::*;
use core::fmt;
use core::marker::PhantomData;
use core::mem::size_of;

use serde::de::{self, Deserialize, IntoDeserializer, Visitor};

use super::access::Paid;
use super::deserializer::Deserializer;
use super::error::DeError;
use super::field_key::{same_bytes, FieldKey};
use super::item::Kind;
use crate::decode::Decoder;
use crate::error::{wire_len, EncodeError, Error, LengthOf};
use crate::wire::header::{self, marker, scalar_kinds, Header};

/// A type read straight from MessagePack by the derive path. Derive it
/// (`#[derive(hardpack::Decode)]`); the implementations here cover the standard types.
pub trait Decode<'de>: Sized {
    /// Reads one value of the type from where `de` stands.
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError>;

    /// The value from one byte of a bin read where a sequence is expected (rmp-serde and the
    /// serde path hand a bin's bytes as a sequence's elements).
    #[doc(hidden)]
    fn from_byte(byte: u8) -> Result<Self, DeError> {
        Err(de::Error::invalid_type(
            de::Unexpected::Unsigned(u64::from(byte)),
            &"a value other than an integer",
        ))
    }

    /// The value of a struct's field its map leaves out: an error, but `None` for an
    /// `Option` (as serde's derive reads it).
    #[doc(hidden)]
    fn missing(field: &'static str) -> Result<Self, DeError> {
        Err(de::Error::missing_field(field))
    }

    /// The value, and its length, when `rest` starts with a scalar that
    /// [`decode`](Self::decode) reads to that value outside strict mode with no check
    /// concerned (no limit or budget applies to a number or a bool, and it opens nothing);
    /// `None` for anything else, which `decode` reads. A sequence's loop reads its elements
    /// by this from a slice of its own, held in registers, where through the deserializer
    /// each element's read was a store and a load of the cursor.
    #[doc(hidden)]
    #[inline(always)]
    fn peek_plain(rest: &'de [u8]) -> Option<(Self, usize)> {
        let _ = rest;
        None
    }

    /// What [`decode`](Self::decode)'s checks come to on a value that
    /// [`peek_plain`](Self::peek_plain) reads: nothing for a number or a bool; for a struct
    /// or tuple of them, the arrays it opens.
    #[doc(hidden)]
    const PLAIN: Plain = Plain::SCALAR;

    /// Reads the longest run it can of up to `left` elements in their plain form from the
    /// start of `rest` into `values`, many at a time, and gives the bytes and the elements it
    /// read: what `left` calls of [`peek_plain`](Self::peek_plain) would read, or the first
    /// of them. A sequence's loop calls it before its element-at-a-time read.
    #[doc(hidden)]
    #[inline(always)]
    fn peek_plain_run(rest: &'de [u8], left: usize, values: &mut Vec<Self>) -> (usize, usize) {
        let _ = (rest, left, values);
        (0, 0)
    }
}

/// What the checks on a plain value's read (see [`Decode::peek_plain`]) come to: how many
/// levels of arrays it opens, the most elements one of them holds, and the bytes their
/// headers charge to the budget (each struct's or tuple's size, as its header is read).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plain {
    pub levels: usize,
    pub widest: usize,
    pub charge: usize,
}

impl Plain {
    /// A number or a bool: no header, no check.
    pub const SCALAR: Plain = Plain {
        levels: 0,
        widest: 0,
        charge: 0,
    };

    /// A struct or tuple of `size` bytes read from an array of `fields`.
    pub const fn array_of(size: usize, fields: &[Plain]) -> Plain {
        let inside = Plain::deepest(fields);
        Plain {
            levels: inside.levels.saturating_add(1),
            widest: if fields.len() > inside.widest {
                fields.len()
            } else {
                inside.widest
            },
            charge: size.saturating_add(inside.charge),
        }
    }

    /// The most levels and elements of any of `fields`, and what they all charge.
    const fn deepest(fields: &[Plain]) -> Plain {
        match fields {
            [] => Plain::SCALAR,
            [first, rest @ ..] => {
                let rest = Plain::deepest(rest);
                Plain {
                    levels: if first.levels > rest.levels {
                        first.levels
                    } else {
                        rest.levels
                    },
                    widest: if first.widest > rest.widest {
                        first.widest
                    } else {
                        rest.widest
                    },
                    charge: first.charge.saturating_add(rest.charge),
                }
            }
        }
    }
}

/// The bytes after an array header of exactly `count` elements (in any of its forms) at the
/// start of `rest`; `None` for anything else.
#[doc(hidden)]
#[inline(always)]
pub fn plain_array(rest: &[u8], count: usize) -> Option<&[u8]> {
    let (len, header) = array_header(rest)?;
    if len != count {
        return None;
    }
    rest.get(header..)
}

/// The length of the array whose header (in any of its forms) starts `rest`, and the
/// header's length; `None` for anything else.
#[inline(always)]
pub(super) fn array_header(rest: &[u8]) -> Option<(usize, usize)> {
    Some(match *rest.first()? {
        m @ 0x90..=0x9f => (usize::from(m & 0x0f), 1),
        marker::ARRAY16 => (
            usize::from(u16::from_be_bytes(*rest.get(1..)?.first_chunk()?)),
            3,
        ),
        marker::ARRAY32 => (
            usize::try_from(u32::from_be_bytes(*rest.get(1..)?.first_chunk()?)).ok()?,
            5,
        ),
        _ => return None,
    })
}

/// A value of `T` in its plain form (see [`Decode::peek_plain`]) where the reader stands,
/// read, when every check its read by [`Decode::decode`] makes would pass; `None`, nothing
/// read or charged, for anything else (and in strict mode), which `decode` reads.
#[doc(hidden)]
#[inline(always)]
pub fn plain<'de, T: Decode<'de>, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
) -> Option<T> {
    if STRICT {
        return None;
    }
    let rest = de.reader.cursor().rest();
    let (value, len) = T::peek_plain(rest)?;
    let pending = de.open.pending_after_current();
    if !plain_passes(de, T::PLAIN, rest.len().saturating_sub(len), pending) {
        return None;
    }
    de.reader.skip_peeked(len);
    Some(value)
}

/// Whether the checks on a plain value's read pass, given the bytes after it and the items
/// the open containers expect after it; if so, its headers' charge is made. When these
/// pass, every header's checks (the reader's, on its widest and deepest header) pass: the
/// length and the depth exactly when these do; the room when the items after the value
/// have a byte each after it, since the value's own items each take a byte of it (a value
/// whose headers would pass the room check without that is left to the general read); and
/// the charges, made one by one, fit exactly when their sum does.
#[inline(always)]
fn plain_passes<const STRICT: bool>(
    de: &mut Deserializer<'_, STRICT>,
    plain: Plain,
    left_after: usize,
    pending_after: usize,
) -> bool {
    if plain.levels == 0 {
        return true;
    }
    let open = (de.open.levels(), pending_after);
    de.reader
        .peeked_passes(plain.levels, plain.widest, open, left_after)
        && de.budget.charge(plain.charge).is_ok()
}

/// A type written as MessagePack by the derive path, byte for byte as the serde path
/// ([`to_vec`](crate::to_vec)) and rmp-serde write it. Derive it
/// (`#[derive(hardpack::Encode)]`).
pub trait Encode {
    /// Appends the value's encoding to `out`. Fails only for a length MessagePack cannot
    /// hold (more than `u32::MAX` elements or bytes).
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;

    /// The most bytes any value of the type is written in, where there is such a bound (for
    /// numbers, and structs, tuples and arrays of them): such values are written into room
    /// reserved for the bound, without a room check a byte. Derived; `None` is always right.
    #[doc(hidden)]
    const MAX_LEN: Option<usize> = None;

    /// Whether every value of the type is written in exactly [`MAX_LEN`](Self::MAX_LEN)
    /// bytes (floats, and structs, tuples and arrays of them): a sequence of such values is
    /// written with no position kept and nothing cut back. Derived; `false` is always right.
    #[doc(hidden)]
    const FIXED_LEN: bool = false;

    /// Writes what [`encode`](Self::encode) writes at the start of `out`, which is at least
    /// [`MAX_LEN`](Self::MAX_LEN) long, and gives the number of bytes written (`None` if
    /// they did not fit: a bound was wrong). The bytes of `out` after those may be written
    /// too (a wider store), and are left for what follows. Called only where `MAX_LEN` is
    /// `Some`.
    #[doc(hidden)]
    #[inline]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        let mut written = Vec::new();
        self.encode(&mut written).ok()?;
        out.get_mut(..written.len())?.copy_from_slice(&written);
        Some(written.len())
    }

    /// Writes the elements of a sequence of the type, its header already written.
    #[doc(hidden)]
    #[inline]
    fn encode_items(items: &[Self], out: &mut Vec<u8>) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        match Self::MAX_LEN {
            Some(len) if Self::FIXED_LEN && len <= BOUNDED_ITEM => {
                write_fixed_items(items, len, out)
            }
            Some(bound) if bound <= BOUNDED_ITEM => write_bounded_items(items, bound, out),
            _ => items.iter().try_for_each(|value| value.encode(out)),
        }
    }
}

/// The writer of a bounded encoding (see [`Encode::MAX_LEN`]): the slice of room reserved for
/// it and the position in it, held by the function writing (in registers, not behind a
/// reference a byte store might alias) and handed on to each part as the slice after it.
#[doc(hidden)]
pub struct Bounded<'a> {
    buf: &'a mut [u8],
    len: usize,
    /// A write found no room: a bound was wrong.
    overran: bool,
}

impl<'a> Bounded<'a> {
    /// A writer at the start of `buf`, of a value of at most `bound` bytes; `None` if `buf`
    /// is shorter. `buf` is cut to `bound` first, and a part that does not fit returns at
    /// once ([`put`](Self::put)), so each write's room check is against constants, which
    /// the compiler folds away where the writes before it have constant lengths.
    #[inline(always)]
    pub fn new(buf: &'a mut [u8], bound: Option<usize>) -> Option<Self> {
        let len = buf.len();
        Some(Bounded {
            buf: buf.get_mut(..bound.unwrap_or(len))?,
            len: 0,
            overran: false,
        })
    }

    /// The number of bytes written, or `None` if one did not fit.
    #[inline(always)]
    pub fn done(self) -> Option<usize> {
        (!self.overran).then_some(self.len)
    }

    /// Writes `value` after what is written; `None` if it did not fit.
    #[inline(always)]
    pub fn put<T: Encode + ?Sized>(&mut self, value: &T) -> Option<()> {
        let n = value.encode_bounded(self.buf.get_mut(self.len..)?)?;
        self.len = self.len.saturating_add(n);
        Some(())
    }

    /// Writes an array header for `len` elements.
    #[inline(always)]
    pub fn array_header(&mut self, len: usize) {
        match u32::try_from(len) {
            Ok(len) => header::write_array_len(len, self),
            Err(_) => self.overran = true,
        }
    }

    /// Writes a map header for `len` entries.
    #[inline(always)]
    pub fn map_header(&mut self, len: usize) {
        match u32::try_from(len) {
            Ok(len) => header::write_map_len(len, self),
            Err(_) => self.overran = true,
        }
    }

    /// Writes a str (a variant's name).
    #[inline(always)]
    pub fn str(&mut self, text: &str) {
        match u32::try_from(text.len()) {
            Ok(len) => {
                header::write_str_len(len, self);
                header::Sink::extend_from_slice(self, text.as_bytes());
            }
            Err(_) => self.overran = true,
        }
    }
}

impl header::Sink for Bounded<'_> {
    #[inline(always)]
    fn push(&mut self, byte: u8) {
        self.extend_from_slice(&[byte]);
    }

    #[inline(always)]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        match self
            .buf
            .get_mut(self.len..)
            .and_then(|room| room.get_mut(..bytes.len()))
        {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = self.len.saturating_add(bytes.len());
            }
            None => self.overran = true,
        }
    }

    #[inline(always)]
    fn take_back(&mut self, n: usize) {
        self.len = self.len.saturating_sub(n);
    }
}

/// The bound of a value written as `parts` one after another: `None` if any part has none.
#[doc(hidden)]
pub const fn bound_of_all(parts: &[Option<usize>]) -> Option<usize> {
    match parts {
        [] => Some(0),
        [first, rest @ ..] => match (*first, bound_of_all(rest)) {
            (Some(first), Some(rest)) => first.checked_add(rest),
            _ => None,
        },
    }
}

/// The bound of a value written as one of `choices`: `None` if any choice has none.
#[doc(hidden)]
pub const fn bound_of_any(choices: &[Option<usize>]) -> Option<usize> {
    match choices {
        [] => Some(0),
        [first, rest @ ..] => match (*first, bound_of_any(rest)) {
            (Some(first), Some(rest)) if first > rest => Some(first),
            (Some(_), Some(rest)) => Some(rest),
            _ => None,
        },
    }
}

/// The bytes of an array or map header for `len` elements or entries.
#[doc(hidden)]
pub const fn container_header_len(len: usize) -> usize {
    if len < 16 {
        1
    } else if len <= u16::MAX as usize {
        3
    } else {
        5
    }
}

/// The bytes of a str of `len` bytes, header included.
#[doc(hidden)]
pub const fn str_len(len: usize) -> usize {
    let header = if len < 32 {
        1
    } else if len <= u8::MAX as usize {
        2
    } else if len <= u16::MAX as usize {
        3
    } else {
        5
    };
    len.saturating_add(header)
}

/// The most bytes a bounded value may reserve and zero in the `Vec` before it is written
/// (see [`write_bounded`]): past it, zeroing costs more than the room checks it saves.
const BOUNDED_WRITE: usize = 256;

/// Writes a bounded value (see [`Encode::MAX_LEN`]) straight into `out`: its bound's worth of
/// zeros is appended, written over and cut back to the bytes written, so the writes' room
/// checks are against constants and nothing is copied. `false`, with `out` unchanged, where
/// the type has no such bound or one over [`BOUNDED_WRITE`], or a bound was wrong.
#[doc(hidden)]
#[inline(always)]
pub fn write_bounded<T: Encode + ?Sized>(value: &T, out: &mut Vec<u8>) -> bool {
    let bound = match T::MAX_LEN {
        Some(bound) if bound <= BOUNDED_WRITE => bound,
        _ => return false,
    };
    let start = out.len();
    out.resize(start.saturating_add(bound), 0);
    match out
        .get_mut(start..)
        .and_then(|room| value.encode_bounded(room))
    {
        Some(written) => {
            out.truncate(start.saturating_add(written));
            true
        }
        None => {
            out.truncate(start);
            crate::invariant::broken("a bounded encoding longer than its bound");
            false
        }
    }
}

/// The bytes a sequence's bounded elements are written into at a time.
const BOUNDED_RUN: usize = 512;

/// The room reserved for a run of at most this many bytes (see [`write_bounded_items`]).
const SHORT_RUN: usize = 64;

/// `items` in runs of [`BOUNDED_RUN`] bytes at most, each item taking at most `each`.
#[inline(always)]
fn runs<T>(items: &[T], each: usize) -> core::slice::Chunks<'_, T> {
    items.chunks(BOUNDED_RUN.checked_div(each).unwrap_or(1).max(1))
}

/// Writes `items`, each of at most `bound` bytes, straight into `out` a run at a time: room
/// for the run's bound is zeroed, written over and cut back (as [`write_bounded`] does for one
/// value), so that the room reserved past the end is never more than [`BOUNDED_RUN`] bytes.
#[inline]
fn write_bounded_items<T: Encode>(
    items: &[T],
    bound: usize,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    for run in runs(items, bound) {
        let start = out.len();
        let room = run.len().saturating_mul(bound);
        // A short run's room is zeroed as a constant length, by a few stores in line rather
        // than a call (a short vector is a run of its own).
        if room <= SHORT_RUN {
            out.resize(start.saturating_add(SHORT_RUN), 0);
        } else {
            out.resize(start.saturating_add(room), 0);
        }
        let mut len = start;
        let mut unwritten: &[T] = &[];
        for (index, item) in run.iter().enumerate() {
            match out
                .get_mut(len..)
                .and_then(|room| item.encode_bounded(room))
            {
                Some(written) => len = len.saturating_add(written),
                None => {
                    unwritten = run.get(index..).unwrap_or_default();
                    break;
                }
            }
        }
        out.truncate(len);
        if !unwritten.is_empty() {
            // The rest of this run goes through the `Vec`; the runs after it as before.
            crate::invariant::broken("a bounded encoding longer than its bound");
            unwritten.iter().try_for_each(|item| item.encode(out))?;
        }
    }
    Ok(())
}

/// Writes `items`, each of exactly `len` bytes (see [`Encode::FIXED_LEN`]), a run at a time
/// into room zeroed for the run, as [`write_bounded_items`] does, each into its own slot of
/// it: with every length known, no position is kept and nothing is cut back.
#[inline]
fn write_fixed_items<T: Encode>(
    items: &[T],
    len: usize,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    for run in runs(items, len) {
        let start = out.len();
        out.resize(start.saturating_add(run.len().saturating_mul(len)), 0);
        let room = out.get_mut(start..).unwrap_or_default();
        let wrong = room
            .chunks_exact_mut(len)
            .zip(run)
            .position(|(slot, item)| item.encode_bounded(slot) != Some(len));
        if let Some(index) = wrong {
            // The rest of this run goes through the `Vec`; the runs after it as before.
            crate::invariant::broken("a fixed-length encoding of another length");
            out.truncate(start.saturating_add(index.saturating_mul(len)));
            let unwritten = run.get(index..).unwrap_or_default();
            unwritten.iter().try_for_each(|item| item.encode(out))?;
        }
    }
    Ok(())
}

/// Decodes exactly one value of type `T` from `input` under `Limits::default()` by the
/// derive path; bytes after it are an error.
///
/// ```
/// use hardpack::{Decode, Encode};
///
/// #[derive(Decode, Encode, Debug, PartialEq)]
/// struct Point<'a> { x: i32, name: &'a str }
///
/// let bytes = hardpack::derive::to_vec(&Point { x: 1, name: "origin" })?;
/// assert_eq!(bytes, hardpack::to_vec(&(1, "origin"))?); // the array of its fields
/// let p: Point = hardpack::derive::from_slice(&bytes)?;
/// assert_eq!(p, Point { x: 1, name: "origin" });
///
/// // A str where an integer is expected: the same error, at the same byte, as from_slice's.
/// let err = hardpack::derive::from_slice::<Point>(&hardpack::to_vec(&("1", "o"))?).unwrap_err();
/// assert_eq!(err.to_string(), r#"invalid type: string "1", expected i32 at byte 1, depth 1"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_slice<'de, T: Decode<'de>>(input: &'de [u8]) -> Result<T, Error> {
    Decoder::default().from_slice_derived(input)
}

/// The encoding of `value` by the derive path.
pub fn to_vec<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    value.encode(&mut out)?;
    Ok(out)
}

impl Decoder {
    /// Decodes exactly one value of type `T` from `input` by the derive path, under this
    /// decoder's limits and, in strict mode, its checks: what [`from_slice`](Self::from_slice)
    /// decodes for a type deriving both serde and hardpack, with the same errors.
    #[inline]
    pub fn from_slice_derived<'de, T: Decode<'de>>(&self, input: &'de [u8]) -> Result<T, Error> {
        let de = Deserializer::new(input, self.limits());
        if self.is_strict() {
            return whole_value(de.strict(), input.len());
        }
        whole_value(de, input.len())
    }
}

/// As the serde path's `whole_value`.
#[inline(always)]
fn whole_value<'de, T: Decode<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
    input_len: usize,
) -> Result<T, Error> {
    match T::decode(&mut de) {
        Ok(value) => {
            let consumed = de.value_end()?;
            Deserializer::<STRICT>::trailing(input_len, consumed)?;
            Ok(value)
        }
        Err(e) => Err(e.placed(0, 0).into_error()),
    }
}

/// What generated code calls: not part of the API, and free to change with the derive
/// crate of the same version.
#[doc(hidden)]
pub mod __private {
    pub use super::{
        bin_element, bound_of_all, bound_of_any, container_header_len, enumeration, newtype,
        newtype_with, refuse_map, str_len, struct_begin, struct_rest, structure, unit_struct,
        write_array_len, write_bounded, write_map_len, write_str, Bounded, Entries, Fields, Seq,
        Variant,
    };
    pub use super::{plain, plain_array, Decode, Plain};
    pub use crate::de::{DeError, Deserializer};
    pub use crate::error::EncodeError;
    pub use core::mem::size_of;
    pub use core::option::Option::{self, None, Some};
    pub use core::result::Result::{self, Err, Ok};
    pub use serde::de::Error as _;
    pub type Vec<T> = alloc::vec::Vec<T>;

    /// serde's error for a sequence `index` elements long where `expecting` needs more.
    #[cold]
    pub fn invalid_length(index: usize, expecting: &dyn serde::de::Expected) -> DeError {
        serde::de::Error::invalid_length(index, expecting)
    }

    /// serde's error for a struct's field its map leaves out.
    #[cold]
    pub fn missing_field(field: &'static str) -> DeError {
        serde::de::Error::missing_field(field)
    }

    /// serde's error for a byte of a bin where a value other than an integer is expected.
    #[cold]
    pub fn invalid_byte(byte: u8, expecting: &dyn serde::de::Expected) -> DeError {
        serde::de::Error::invalid_type(serde::de::Unexpected::Unsigned(u64::from(byte)), expecting)
    }

    /// A variant index the enum's reader does not know: cannot happen, the index comes from
    /// its own list of variants.
    #[cold]
    pub fn unknown_index() -> DeError {
        serde::de::Error::custom("a variant index out of the enum's list")
    }

    /// The error for writing a skipped variant.
    #[cold]
    pub fn skipped_variant(message: &str) -> EncodeError {
        EncodeError::custom(message.into())
    }

    /// serde's error for a struct's field named twice in its map.
    #[cold]
    pub fn duplicate_field(field: &'static str) -> DeError {
        serde::de::Error::duplicate_field(field)
    }
}

/// A visitor that refuses every item, as serde's derived visitors refuse what they do not
/// take: the item's error made by serde's own default methods, naming `expecting`.
struct Refuse<'e, T>(&'e dyn de::Expected, PhantomData<T>);

impl<'de, T> Visitor<'de> for Refuse<'_, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The error for an item of the wrong kind, made by the serde path's own visit of it (an ext
/// is charged first there, as on every path that reads one).
#[cold]
#[inline(never)]
fn refuse<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    item: super::item::Item<'de>,
    expecting: &dyn de::Expected,
) -> Result<T, DeError> {
    de.visit_item(Refuse(expecting, PhantomData), item, false)
}

/// The fields of a struct, tuple or tuple variant read from an array (or a bin's bytes), in
/// order.
pub struct Fields<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    /// A bin's bytes still to hand out, when the fields come from a bin.
    bytes: Option<core::slice::Iter<'de, u8>>,
    /// How a tuple variant's elements are paid for: as a collection's. `None` for the fields
    /// of a struct, tuple or array, stored in the value they build, whose size was charged
    /// with its header: each field fits in what is left of it (what the serde path's
    /// `Paid::<true>` takes from), so none is charged.
    paid: Option<Paid<false>>,
}

impl<'de, const STRICT: bool> Fields<'_, 'de, STRICT> {
    /// The next field, or `None` past the last element.
    #[inline(always)]
    pub fn element<T: Decode<'de>>(&mut self) -> Result<Option<T>, DeError> {
        if self.bytes.is_some() {
            return self.byte_element();
        }
        let count = self.de.open.innermost;
        if count == 0 {
            return Ok(None);
        }
        if let Some(paid) = &mut self.paid {
            paid.pay(self.de, size_of::<T>(), count)?;
        }
        self.de.open.innermost = count.saturating_sub(1);
        T::decode(self.de).map(Some)
    }

    /// The next field from a bin's bytes.
    #[cold]
    #[inline(never)]
    fn byte_element<T: Decode<'de>>(&mut self) -> Result<Option<T>, DeError> {
        let count = self.left();
        if count == 0 {
            return Ok(None);
        }
        if let Some(paid) = &mut self.paid {
            paid.pay(self.de, size_of::<T>(), count)?;
        }
        match self.bytes.as_mut().and_then(Iterator::next) {
            Some(&byte) => T::from_byte(byte).map(Some),
            None => Ok(None),
        }
    }

    /// The field at `index`, which must be there (`expecting` names the whole, with its
    /// count: "struct S with 2 elements").
    #[inline(always)]
    pub fn field<T: Decode<'de>>(
        &mut self,
        index: usize,
        expecting: &dyn de::Expected,
    ) -> Result<T, DeError> {
        match self.element()? {
            Some(value) => Ok(value),
            None => Err(__private::invalid_length(index, expecting)),
        }
    }

    /// The field at `index`, read by `read` (`#[hardpack(with = "..")]`); from a bin's byte,
    /// refused.
    #[inline(always)]
    pub fn field_with<T>(
        &mut self,
        index: usize,
        expecting: &dyn de::Expected,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        match self.next_with(read)? {
            Some(value) => Ok(value),
            None => Err(__private::invalid_length(index, expecting)),
        }
    }

    /// The field read by `read`, or its default past the last element.
    #[inline(always)]
    pub fn field_with_or_default<T: Default>(
        &mut self,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        Ok(self.next_with(read)?.unwrap_or_default())
    }

    fn next_with<T>(
        &mut self,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<Option<T>, DeError> {
        let count = self.left();
        if count == 0 {
            return Ok(None);
        }
        if let Some(paid) = &mut self.paid {
            paid.pay(self.de, size_of::<T>(), count)?;
        }
        match &mut self.bytes {
            None => {
                self.de.open.innermost = count.saturating_sub(1);
                read(self.de).map(Some)
            }
            Some(bytes) => match bytes.next() {
                Some(&byte) => Err(__private::invalid_byte(
                    byte,
                    &"a field read by its own function",
                )),
                None => Ok(None),
            },
        }
    }

    /// The field at `index`, or its default past the last element (`#[hardpack(default)]`).
    #[inline(always)]
    pub fn field_or_default<T: Decode<'de> + Default>(&mut self) -> Result<T, DeError> {
        Ok(self.element()?.unwrap_or_default())
    }

    /// After the last field, before the value is built: an error if the array (or the bin)
    /// holds more than the type reads, as the serde path refuses it. (Checked before the value
    /// exists, not after: a value held across the check was stored and read back a field at a
    /// time, and its copy stalled on store forwarding.)
    #[inline(always)]
    pub fn finish(&self) -> Result<(), DeError> {
        match self.left() {
            0 => Ok(()),
            left => Err(self.too_many(left)),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_many(&self, left: usize) -> DeError {
        let message = if self.bytes.is_some() {
            format!("the bin has {left} bytes more than the type takes")
        } else {
            format!("the array has {left} elements more than the type takes")
        };
        de::Error::custom(message)
    }

    /// Elements (or bytes) the type did not read.
    fn left(&self) -> usize {
        match &self.bytes {
            None => self.de.open.innermost,
            Some(bytes) => bytes.len(),
        }
    }
}

/// The entries of a struct read from a map: each key read as one of the struct's field names
/// (or its index among them), as serde's derived field identifier reads it.
pub struct Entries<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    fields: &'static [&'static str],
    expected: usize,
}

impl<'de, const STRICT: bool> Entries<'_, 'de, STRICT> {
    /// The next key: `Some(Some(i))` for the field at `i`, `Some(None)` for a key that names
    /// none (its value is to be skipped), `None` past the last entry.
    #[inline(always)]
    pub fn next_key(&mut self) -> Result<Option<Option<usize>>, DeError> {
        let items = self.de.open.innermost;
        if items == 0 {
            return Ok(None);
        }
        self.de.open.innermost = items.saturating_sub(1);
        de::Deserializer::deserialize_identifier(
            FieldKey {
                de: self.de,
                fields: self.fields,
                expected: &mut self.expected,
            },
            FieldIndex(self.fields),
        )
        .map(Some)
    }

    /// The value of the entry whose key was read.
    #[inline(always)]
    pub fn value<T: Decode<'de>>(&mut self) -> Result<T, DeError> {
        self.de.open.innermost = self.de.open.innermost.saturating_sub(1);
        T::decode(self.de)
    }

    /// The value of the entry whose key was read, read by `read`.
    #[inline(always)]
    pub fn value_with<T>(
        &mut self,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        self.de.open.innermost = self.de.open.innermost.saturating_sub(1);
        read(self.de)
    }

    /// Reads past the value of a key that names no field (read as serde's `IgnoredAny`).
    pub fn skip_value(&mut self) -> Result<(), DeError> {
        self.de.open.innermost = self.de.open.innermost.saturating_sub(1);
        de::IgnoredAny::deserialize(&mut *self.de).map(|_| ())
    }
}

/// serde's derived field identifier: a field's name (as a str or bytes) or its index; any
/// other name or index is a field to ignore.
struct FieldIndex(&'static [&'static str]);

impl<'de> Visitor<'de> for FieldIndex {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<usize>, E> {
        Ok(usize::try_from(v).ok().filter(|&i| i < self.0.len()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| *name == v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| name.as_bytes() == v))
    }
}

/// The fields of a struct (or tuple struct, tuple, array) read from an array, in order, by
/// straight-line code: each field's errors are placed at the array, as the serde path places
/// them, and [`end`](Self::end) refuses elements the type does not read.
pub struct Seq {
    offset: usize,
    depth: usize,
    len: usize,
    around: super::deserializer::Around,
}

/// Reads a struct's header (as `deserialize_struct` does) when it is an array: charged `size`
/// (the value's) and entered. `None`, nothing read, for any other item: [`struct_rest`] reads
/// it. (The marker is looked at, not the item read: an item handed from here to there went
/// through memory, and its copy stalled on store forwarding.)
#[inline(always)]
pub fn struct_begin<const STRICT: bool>(
    de: &mut Deserializer<'_, STRICT>,
    size: usize,
) -> Result<Option<Seq>, DeError> {
    let (offset, depth, len) = match de.array_passing_checks() {
        Some(array) => array,
        None => {
            if !matches!(
                de.reader.cursor().peek_u8(),
                Some(0x90..=0x9f | marker::ARRAY16 | marker::ARRAY32)
            ) {
                return Ok(None);
            }
            let item = de.next_in_recursion()?;
            (item.offset, item.depth, item.len())
        }
    };
    de.charge_at(size, offset, depth)?;
    let around = de.open.enter(len);
    Ok(Some(Seq {
        offset,
        depth,
        len,
        around,
    }))
}

/// A struct whose header is not an array (see [`struct_begin`]): a map of its fields' names,
/// a bin of their bytes, or serde's refusal naming `expecting`.
#[inline(never)]
pub fn struct_rest<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    expecting: &dyn de::Expected,
    fields: &'static [&'static str],
    size: usize,
    seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
    map: impl FnOnce(&mut Entries<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    structure(de, expecting, fields, size, seq, map)
}

impl Seq {
    /// The field at `index`, which must be there (`expecting`: "struct S with 2 elements").
    #[inline(always)]
    pub fn field<'de, T: Decode<'de>, const STRICT: bool>(
        &self,
        de: &mut Deserializer<'de, STRICT>,
        index: usize,
        expecting: &dyn de::Expected,
    ) -> Result<T, DeError> {
        // As `field_with`, written out: through a closure, the field's read (inlined into
        // it) stayed out of line, and its result came back through memory.
        let count = de.open.innermost;
        if count == 0 {
            return Err(self.place(__private::invalid_length(index, expecting)));
        }
        de.open.innermost = count.saturating_sub(1);
        match T::decode(de) {
            Ok(value) => Ok(value),
            Err(e) => Err(self.place(e)),
        }
    }

    /// The field read by `read` (`#[hardpack(with = "..")]`).
    #[inline(always)]
    pub fn field_with<'de, T, const STRICT: bool>(
        &self,
        de: &mut Deserializer<'de, STRICT>,
        index: usize,
        expecting: &dyn de::Expected,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let count = de.open.innermost;
        if count == 0 {
            return Err(self.place(__private::invalid_length(index, expecting)));
        }
        de.open.innermost = count.saturating_sub(1);
        match read(de) {
            Ok(value) => Ok(value),
            Err(e) => Err(self.place(e)),
        }
    }

    /// The field, or its default past the last element (`#[hardpack(default)]`).
    #[inline(always)]
    pub fn field_or_default<'de, T: Decode<'de> + Default, const STRICT: bool>(
        &self,
        de: &mut Deserializer<'de, STRICT>,
    ) -> Result<T, DeError> {
        if de.open.innermost == 0 {
            return Ok(T::default());
        }
        self.field(de, 0, &"")
    }

    /// The field read by `read`, or its default past the last element.
    #[inline(always)]
    pub fn field_with_or_default<'de, T: Default, const STRICT: bool>(
        &self,
        de: &mut Deserializer<'de, STRICT>,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        if de.open.innermost == 0 {
            return Ok(T::default());
        }
        self.field_with(de, 0, &"", read)
    }

    /// After the last field: the elements the type did not read are refused, as the serde
    /// path refuses them; the array is left.
    #[inline(always)]
    pub fn end<const STRICT: bool>(self, de: &mut Deserializer<'_, STRICT>) -> Result<(), DeError> {
        let left = de.open.innermost;
        if left > 0 {
            return Err(self.place(de::Error::custom(format!(
                "the array has {left} elements more than the type takes"
            ))));
        }
        de.open.leave(self.around);
        if self.len > 0 {
            de.close();
        }
        Ok(())
    }

    /// An error of the struct's, placed at its array if it has no place yet.
    #[cold]
    #[inline(never)]
    fn place(&self, e: DeError) -> DeError {
        e.placed(self.offset, self.depth)
    }
}

/// Reads a struct, tuple struct or tuple (as `deserialize_struct` and `deserialize_tuple`
/// read one): an array of its fields (`seq`), a map from their names (`map`, for a struct:
/// which refuses one for a tuple), or a bin of their bytes; `size` (the value's) charged at its header.
#[inline(always)]
pub fn structure<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    expecting: &dyn de::Expected,
    fields: &'static [&'static str],
    size: usize,
    seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
    map: impl FnOnce(&mut Entries<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    let item = de.next_in_recursion()?;
    let (offset, depth) = (item.offset, item.depth);
    if !matches!(item.kind, Kind::Array | Kind::Map | Kind::Bin) {
        return refuse(de, item, expecting);
    }
    de.charge_at(size, offset, depth)?;
    let paid = None;
    let result = match item.kind {
        Kind::Array => in_array(de, item.len(), paid, seq),
        Kind::Bin => from_bin(de, item.bytes, paid, seq),
        _ => in_map(de, item.len(), fields, map),
    };
    result.map_err(|e| e.placed(offset, depth))
}

/// The fields of an array of `len` elements, read by `seq`, which must read them all.
#[inline(always)]
fn in_array<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    len: usize,
    paid: Option<Paid<false>>,
    seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    let around = de.open.enter(len);
    let mut fields = Fields {
        de: &mut *de,
        bytes: None,
        paid,
    };
    let value = seq(&mut fields)?;
    if fields.left() > 0 {
        crate::invariant::broken("a derived type's fields read without `Fields::finish`");
    }
    de.open.leave(around);
    if len > 0 {
        de.close();
    }
    Ok(value)
}

/// The fields of a bin, one byte each.
#[cold]
fn from_bin<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    bytes: &'de [u8],
    paid: Option<Paid<false>>,
    seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    let mut fields = Fields {
        de,
        bytes: Some(bytes.iter()),
        paid,
    };
    let value = seq(&mut fields)?;
    if fields.left() > 0 {
        crate::invariant::broken("a derived type's fields read without `Fields::finish`");
    }
    Ok(value)
}

/// The entries of a struct's map of `len` entries, read by `map`, which must read them all.
#[inline(never)]
fn in_map<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    len: usize,
    fields: &'static [&'static str],
    map: impl FnOnce(&mut Entries<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    let around = de.open.enter(len.saturating_mul(2));
    let value = map(&mut Entries {
        de: &mut *de,
        fields,
        expected: 0,
    })?;
    let items_left = de.open.innermost;
    if items_left > 0 {
        drop(value);
        return Err(super::deserializer::map_left_unread(items_left));
    }
    de.open.leave(around);
    if len > 0 {
        de.close();
    }
    Ok(value)
}

/// Reads a newtype struct: its content, as one more level of recursion.
#[inline(always)]
pub fn newtype<'de, T: Decode<'de>, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
) -> Result<T, DeError> {
    de.within_wrapper(|de| T::decode(de))
}

/// Reads a newtype struct whose content `read` reads (`#[hardpack(with = "..")]`).
#[inline(always)]
pub fn newtype_with<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    de.within_wrapper(read)
}

/// Reads a unit struct: an empty array, or nil.
pub fn unit_struct<const STRICT: bool>(
    de: &mut Deserializer<'_, STRICT>,
    expecting: &'static str,
) -> Result<(), DeError> {
    let item = de.next_in_recursion()?;
    if item.kind == Kind::Array && item.len() == 0 {
        return Ok(());
    }
    de.visit_item(UnitStruct(expecting), item, false)
}

/// serde's derived unit struct visitor: nil is the struct too.
struct UnitStruct(&'static str);

impl<'de> Visitor<'de> for UnitStruct {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// One of an enum's variants, named by its index in `variants`, with its content still to
/// read (none for a variant written as its name alone).
pub struct Variant<'a, 'de, const STRICT: bool> {
    /// `None` for a variant read from a str: only a unit variant takes that form.
    de: Option<&'a mut Deserializer<'de, STRICT>>,
}

impl<'a, 'de, const STRICT: bool> Variant<'a, 'de, STRICT> {
    /// A unit variant's content: nil.
    #[inline(always)]
    pub fn unit(self) -> Result<(), DeError> {
        match self.de {
            None => Ok(()),
            Some(de) => {
                de.open.innermost = de.open.innermost.saturating_sub(1);
                <()>::deserialize(de)
            }
        }
    }

    /// A newtype variant's content.
    #[inline(always)]
    pub fn newtype<T: Decode<'de>>(self) -> Result<T, DeError> {
        let de = self.content(&"newtype variant")?;
        T::decode(de)
    }

    /// A newtype variant's content, read by `read`.
    #[inline(always)]
    pub fn newtype_with<T>(
        self,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let de = self.content(&"newtype variant")?;
        read(de)
    }

    /// A tuple variant's content: its fields, read by `seq` as a sequence's elements
    /// (`expecting`: "tuple variant E::V").
    #[inline(always)]
    pub fn tuple<T>(
        self,
        expecting: &dyn de::Expected,
        seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let de = self.content(&"tuple variant")?;
        let item = de.next_in_recursion()?;
        let (offset, depth) = (item.offset, item.depth);
        let paid = Some(Paid::nothing());
        let result = match item.kind {
            Kind::Array => in_array(de, item.len(), paid, seq),
            Kind::Bin => from_bin(de, item.bytes, paid, seq),
            Kind::Map => {
                let _ = de.open.enter(item.len().saturating_mul(2));
                Err(de::Error::invalid_type(de::Unexpected::Map, expecting))
            }
            _ => return refuse(de, item, expecting),
        };
        result.map_err(|e| e.placed(offset, depth))
    }

    /// The deserializer at a struct variant's content, which is read as a struct is
    /// ([`struct_begin`]), or serde's refusal of a struct variant written as its name alone.
    #[inline(always)]
    pub fn struct_content(self) -> Result<&'a mut Deserializer<'de, STRICT>, DeError> {
        self.content(&"struct variant")
    }

    /// A struct variant's content, read as [`structure`] reads a struct (`size` the enum's).
    #[inline(always)]
    pub fn structure<T>(
        self,
        expecting: &dyn de::Expected,
        fields: &'static [&'static str],
        size: usize,
        seq: impl FnOnce(&mut Fields<'_, 'de, STRICT>) -> Result<T, DeError>,
        map: impl FnOnce(&mut Entries<'_, 'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let de = self.content(&"struct variant")?;
        structure(de, expecting, fields, size, seq, map)
    }

    /// The deserializer at the variant's content, or serde's refusal of a variant other
    /// than a unit one written as its name.
    #[inline(always)]
    fn content(
        self,
        form: &'static &'static str,
    ) -> Result<&'a mut Deserializer<'de, STRICT>, DeError> {
        match self.de {
            Some(de) => {
                de.open.innermost = de.open.innermost.saturating_sub(1);
                Ok(de)
            }
            None => Err(de::Error::invalid_type(de::Unexpected::UnitVariant, form)),
        }
    }
}

/// Reads an enum (as `deserialize_enum` reads one): a str naming a unit variant, or a map of
/// one entry from the variant (its name, or its index) to its content. `read` gets the
/// variant's index and reads its content.
#[inline(always)]
pub fn enumeration<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    variants: &'static [&'static str],
    read: impl FnOnce(usize, Variant<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    if !STRICT {
        // A unit variant's name, compared where it lies: a str that equals a name is UTF-8,
        // so the general read's UTF-8 check (most of a short name's cost) is not needed.
        // Anything else, a name no variant has included, is left to that read.
        if let Some((bytes, len)) = de.reader.peek_str_bytes() {
            if let Some(index) = variants
                .iter()
                .position(|v| same_bytes(v.as_bytes(), bytes))
            {
                let (offset, depth) = (de.reader.cursor().position(), de.open.depth);
                de.reader.skip_peeked(len);
                return read(index, Variant { de: None }).map_err(|e| e.placed(offset, depth));
            }
        }
    }
    let item = de.next_in_recursion()?;
    let (offset, depth) = (item.offset, item.depth);
    let result = match item.kind {
        Kind::Str => match variants.iter().position(|v| *v == item.text) {
            Some(index) => read(index, Variant { de: None }),
            None => Err(de::Error::unknown_variant(item.text, variants)),
        },
        Kind::Map if item.len() == 1 => {
            let around = de.open.enter(2);
            de.open.innermost = de.open.innermost.saturating_sub(1);
            let index = de::Deserializer::deserialize_identifier(&mut *de, VariantIndex(variants))?;
            let value = read(index, Variant { de: Some(&mut *de) })?;
            de.open.leave(around);
            de.close();
            Ok(value)
        }
        _ => Err(de::Error::custom(format!(
            "expected an enum (a str, or a map of one entry), found {}",
            item.describe()
        ))),
    };
    result.map_err(|e| e.placed(offset, depth))
}

/// serde's derived variant identifier: a variant's name (as a str or bytes) or its index.
struct VariantIndex(&'static [&'static str]);

impl<'de> Visitor<'de> for VariantIndex {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        match usize::try_from(v) {
            Ok(i) if i < self.0.len() => Ok(i),
            _ => Err(E::invalid_value(
                de::Unexpected::Unsigned(v),
                &VariantRange(self.0.len()),
            )),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| *name == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<usize, E> {
        match self.0.iter().position(|name| name.as_bytes() == v) {
            Some(i) => Ok(i),
            None => Err(E::unknown_variant(&String::from_utf8_lossy(v), self.0)),
        }
    }
}

/// serde's expectation of a variant index: "variant index 0 <= i < N".
struct VariantRange(usize);

impl de::Expected for VariantRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variant index 0 <= i < {}", self.0)
    }
}

/// The element `byte` of a bin read as a sequence, for a type read from an integer: what
/// serde's `Deserialize` makes of the byte.
pub fn bin_element<'de, T: Deserialize<'de>>(byte: u8) -> Result<T, DeError> {
    T::deserialize(IntoDeserializer::<DeError>::into_deserializer(byte))
}

/// Writes an array header for `len` elements.
#[inline(always)]
pub fn write_array_len(len: usize, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    header::write_array_len(wire_len(LengthOf::Array, len)?, out);
    Ok(())
}

/// Writes a map header for `len` entries.
#[inline(always)]
pub fn write_map_len(len: usize, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    header::write_map_len(wire_len(LengthOf::Map, len)?, out);
    Ok(())
}

/// Writes a str.
#[inline(always)]
pub fn write_str(text: &str, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    header::write_str(text, wire_len(LengthOf::Str, text.len())?, out);
    Ok(())
}

// The standard types.

/// Leaves: read by their serde `Deserialize` on the same deserializer. Numbers and bools
/// (each given with its peek) are also peeked in the forms that read to a value of the type
/// as the serde path's fast paths take them: a float of the type's own width, an integer of
/// any width whose value the type holds (as its visitor converts it), a bool; and those
/// given a run's read, many elements of a sequence at a time.
macro_rules! leaf_decode {
    ($($ty:ty $(: $peek:expr $(=> $run:expr)?)?),* $(,)?) => {
        $(
            impl<'de> Decode<'de> for $ty {
                #[inline(always)]
                fn decode<const STRICT: bool>(
                    de: &mut Deserializer<'de, STRICT>,
                ) -> Result<Self, DeError> {
                    <$ty as Deserialize<'de>>::deserialize(de)
                }

                fn from_byte(byte: u8) -> Result<Self, DeError> {
                    bin_element(byte)
                }

                $(
                    #[inline(always)]
                    fn peek_plain(rest: &'de [u8]) -> Option<(Self, usize)> {
                        $peek(rest)
                    }

                    $(
                        #[inline(always)]
                        fn peek_plain_run(
                            rest: &'de [u8],
                            left: usize,
                            values: &mut Vec<Self>,
                        ) -> (usize, usize) {
                            $run(rest, left, values)
                        }
                    )?
                )?
            }
        )*
    };
}

leaf_decode!(
    u128,
    i128,
    char,
    String,
    (),
    bool: peek_bool => bool_run,
    u8: peek_integer::<u8> => u8_run,
    u16: peek_integer::<u16>,
    u32: peek_integer::<u32>,
    u64: peek_integer::<u64>,
    usize: peek_integer::<usize>,
    i8: peek_integer::<i8>,
    i16: peek_integer::<i16>,
    i32: peek_integer::<i32>,
    i64: peek_integer::<i64>,
    isize: peek_integer::<isize>,
    f32: peek_f32,
    f64: peek_f64,
);

/// Eight bools at a time: eight bytes each `false` or `true`, whose low bit is the value.
#[inline(always)]
fn bool_run(rest: &[u8], left: usize, values: &mut Vec<bool>) -> (usize, usize) {
    let mut read: usize = 0;
    while left.saturating_sub(read) >= 8 {
        let Some(&eight) = rest.get(read..).and_then(|r| r.first_chunk::<8>()) else {
            break;
        };
        // `false` and `true` differ only in the low bit.
        if u64::from_le_bytes(eight) | 0x0101_0101_0101_0101
            != u64::from(marker::TRUE) * 0x0101_0101_0101_0101
        {
            break;
        }
        values.extend_from_slice(&eight.map(|byte| byte & 1 == 1));
        read = read.saturating_add(8);
    }
    (read, read)
}

/// Bit `i` set where byte `i` of `word` (little-endian) has its high bit set.
#[inline(always)]
fn high_bits(word: u64) -> u32 {
    // Each high bit multiplied up to its own place in the top byte; no two sums carry.
    (((word & 0x8080_8080_8080_8080) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Bit `i` set where byte `i` of `word` is `uint 8`'s marker.
#[inline(always)]
fn uint8_markers(word: u64) -> u32 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let zero_where_marker = word ^ (u64::from(marker::UINT8) * 0x0101_0101_0101_0101);
    // A byte's high bit is set exactly where it is zero (no borrow crosses bytes).
    let zero = !(((zero_where_marker & LOW7).wrapping_add(LOW7)) | zero_where_marker | LOW7);
    high_bits(zero)
}

/// For each set of `uint 8` markers among 8 bytes that start at an element: which of them
/// start an element (a marker's next byte is its value, every other byte starts one).
const ELEMENT_STARTS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut markers = 0;
    while markers < 256 {
        let mut starts = 0u8;
        let mut next_starts = true;
        let mut i = 0;
        while i < 8 {
            if next_starts {
                starts |= 1 << i;
            }
            next_starts = !(next_starts && markers & (1 << i) != 0);
            i += 1;
        }
        // Within bounds: `markers` counts to the table's length.
        #[allow(clippy::indexing_slicing)]
        {
            table[markers] = starts;
        }
        markers += 1;
    }
    table
};

/// A run of `u8` elements in the two forms rmp-serde writes them in (a positive fixint, or
/// `uint 8` and the byte), read eight bytes at a time without a branch on each element's
/// form, which random bytes mispredict half the time: the elements starting in the eight
/// bytes, each a fixint or a marker (a marker's value may be the ninth byte), found from
/// where the markers are; every byte but the markers is a value. Stops before eight bytes
/// holding any other item, or with fewer than eight elements left; it never grows
/// `values` past the room the sequence reserved for its elements (the element-at-a-time
/// read does the rest).
#[inline(always)]
fn u8_run(rest: &[u8], left: usize, values: &mut Vec<u8>) -> (usize, usize) {
    let at = values.len();
    let room = values
        .capacity()
        .saturating_sub(at)
        .min(left.saturating_add(16));
    if left < 8 || room < 16 {
        return (0, 0);
    }
    // The room zeroed once, each value written over the next place, the rest cut back.
    values.resize(at.saturating_add(room), 0);
    let (mut read, mut elements) = (0, 0);
    if let Some(out) = values.get_mut(at..) {
        while left.saturating_sub(elements) >= 8 {
            let (Some(&bytes), Some(place)) = (
                rest.get(read..).and_then(|r| r.first_chunk::<9>()),
                out.get_mut(elements..)
                    .and_then(|o| o.first_chunk_mut::<16>()),
            ) else {
                break;
            };
            let [word @ .., _] = bytes;
            let word = u64::from_le_bytes(word);
            if word & 0x8080_8080_8080_8080 == 0 {
                // Eight fixints (small values, the commonest run): the bytes themselves.
                let (eight, _) = place.split_at_mut(8);
                eight.copy_from_slice(&word.to_le_bytes());
                read = read.saturating_add(8);
                elements = elements.saturating_add(8);
                continue;
            }
            let markers = uint8_markers(word);
            let starts = u32::from(
                ELEMENT_STARTS
                    .get((markers & 0xff) as usize)
                    .copied()
                    .unwrap_or(0),
            );
            if starts & high_bits(word) & !markers != 0 {
                // An element in some other form: read one at a time.
                break;
            }
            // The last byte a marker starting an element: its value is the ninth.
            let spills = (starts & markers) >> 7;
            let kept = !(starts & markers) & 0xff | spills << 8;
            let mut n: usize = 0;
            for (i, &byte) in bytes.iter().enumerate() {
                if let Some(slot) = place.get_mut(n & 15) {
                    *slot = byte;
                }
                n = n.wrapping_add(((kept >> i) & 1) as usize);
            }
            read = read.saturating_add(8).saturating_add(spills as usize);
            elements = elements.saturating_add(n);
        }
    }
    values.truncate(at.saturating_add(elements));
    (read, elements)
}

#[inline(always)]
fn peek_bool(rest: &[u8]) -> Option<(bool, usize)> {
    match rest.first() {
        Some(&m) if m | 1 == marker::TRUE => Some((m & 1 == 1, 1)),
        _ => None,
    }
}

#[inline(always)]
fn peek_f32(rest: &[u8]) -> Option<(f32, usize)> {
    match rest.first_chunk::<5>() {
        Some(&[marker::F32, ref bits @ ..]) => Some((f32::from_be_bytes(*bits), 5)),
        _ => None,
    }
}

#[inline(always)]
fn peek_f64(rest: &[u8]) -> Option<(f64, usize)> {
    match rest.first_chunk::<9>() {
        Some(&[marker::F64, ref bits @ ..]) => Some((f64::from_be_bytes(*bits), 9)),
        _ => None,
    }
}

#[inline(always)]
fn peek_integer<N: TryFrom<u64> + TryFrom<i64>>(rest: &[u8]) -> Option<(N, usize)> {
    let cursor = crate::wire::cursor::Cursor::new(rest);
    match Header::peek_plain_scalar::<{ scalar_kinds::INTEGER }>(&cursor)? {
        (Header::Uint(n), len) => Some((N::try_from(n).ok()?, len)),
        (Header::Int(n), len) => Some((N::try_from(n).ok()?, len)),
        _ => None,
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a str {
    #[inline(always)]
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        <&str>::deserialize(de)
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        bin_element(byte)
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    #[inline(always)]
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        <&[u8]>::deserialize(de)
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        bin_element(byte)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    #[inline(always)]
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        // As `deserialize_option`: a look at the marker, not a read.
        if de.reader.cursor().peek_u8() == Some(marker::NIL) {
            if STRICT {
                // Strict mode follows every item (which are a map's keys).
                de.next_in_recursion()?;
            } else {
                // A nil has no check to pass: the byte seen is the whole item.
                de.reader.skip_peeked(1);
            }
            return Ok(None);
        }
        de.within_wrapper(|de| T::decode(de)).map(Some)
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        Err(de::Error::invalid_type(
            de::Unexpected::Unsigned(u64::from(byte)),
            &"option",
        ))
    }

    fn missing(_field: &'static str) -> Result<Self, DeError> {
        Ok(None)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    #[inline(always)]
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        T::decode(de).map(Box::new)
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        T::from_byte(byte).map(Box::new)
    }

    fn missing(field: &'static str) -> Result<Self, DeError> {
        T::missing(field).map(Box::new)
    }
}

/// A bin's bytes read as a `Vec`'s elements, as the serde path hands them.
#[cold]
#[inline(never)]
fn bin_as_vec<'de, T: Decode<'de>, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    bytes: &'de [u8],
) -> Result<Vec<T>, DeError> {
    let hint = bytes
        .len()
        .min(de.budget.left() / super::HINT_ELEMENT_BYTES);
    from_bin(de, bytes, Some(Paid::nothing()), |fields| {
        let mut values = Vec::with_capacity(cautious::<T>(hint));
        while let Some(value) = fields.element()? {
            values.push(value);
        }
        fields.finish()?;
        Ok(values)
    })
}

/// serde's cap on what a collection reserves from its size hint: 1 MiB of elements.
fn cautious<T>(hint: usize) -> usize {
    const MAX_PREALLOC_BYTES: usize = 1024 * 1024;
    MAX_PREALLOC_BYTES
        .checked_div(size_of::<T>())
        .map_or(0, |most| hint.min(most))
}

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    /// As `deserialize_seq` and serde's `Vec` visitor read it: the elements of an array (or
    /// the bytes of a bin), paid for as a collection's elements, all of them as the first is
    /// read; reserved from the size hint as serde reserves.
    #[inline]
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        let (offset, depth, len) = match de.array_passing_checks() {
            Some(array) => array,
            None => {
                let item = de.next_in_recursion()?;
                let (offset, depth) = (item.offset, item.depth);
                match item.kind {
                    Kind::Array => (offset, depth, item.len()),
                    Kind::Bin => {
                        return bin_as_vec(de, item.bytes).map_err(|e| e.placed(offset, depth))
                    }
                    _ => return refuse(de, item, &"a sequence"),
                }
            }
        };
        let around = de.open.enter(len);
        let mut values = Vec::with_capacity(cautious::<T>(de.hint(len)));
        if len > 0 {
            // Where the serde path's first element pays for them all: before it is read.
            de.charge(size_of::<T>().saturating_mul(len))
                .map_err(|e| e.placed(offset, depth))?;
        }
        let mut left = len;
        while left > 0 {
            if !STRICT {
                // What the elements' own reads would read, a plain scalar at a time, from a
                // slice held here; the first element that is not one is read by its type.
                let mut rest = de.reader.cursor().rest();
                let before = rest.len();
                let (bytes, elements) = T::peek_plain_run(rest, left, &mut values);
                rest = rest.get(bytes..).unwrap_or_default();
                left = left.saturating_sub(elements);
                while left > 0 {
                    let Some((value, n)) = T::peek_plain(rest) else {
                        break;
                    };
                    let pending = de.open.outer.saturating_add(left.saturating_sub(1));
                    if !plain_passes(de, T::PLAIN, rest.len().saturating_sub(n), pending) {
                        break;
                    }
                    values.push(value);
                    rest = rest.get(n..).unwrap_or_default();
                    left = left.saturating_sub(1);
                }
                de.reader.skip_peeked(before.saturating_sub(rest.len()));
                if left == 0 {
                    break;
                }
            }
            left = left.saturating_sub(1);
            de.open.innermost = left;
            match T::decode(de) {
                Ok(value) => values.push(value),
                Err(e) => return Err(e.placed(offset, depth)),
            }
        }
        de.open.leave(around);
        if len > 0 {
            de.close();
        }
        Ok(values)
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        Err(de::Error::invalid_type(
            de::Unexpected::Unsigned(u64::from(byte)),
            &"a sequence",
        ))
    }
}

/// Tuples: read as `deserialize_tuple` reads them, as a struct of their elements.
macro_rules! tuple_decode {
    ($len:literal => $($name:ident $index:tt)+) => {
        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            // As a derived struct's: inlined in an optimized build only.
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn decode<const STRICT: bool>(
                de: &mut Deserializer<'de, STRICT>,
            ) -> Result<Self, DeError> {
                const EXPECTING: &str = concat!("a tuple of size ", $len);
                if let Some(value) = plain::<Self, STRICT>(de) {
                    return Ok(value);
                }
                structure(
                    de,
                    &EXPECTING,
                    &[],
                    size_of::<Self>(),
                    |fields| {
                        $(
                            #[allow(non_snake_case)]
                            let $name: $name = fields.field($index, &EXPECTING)?;
                        )+
                        fields.finish()?;
                        Ok(($($name,)+))
                    },
                    |_| refuse_map(&EXPECTING),
                )
            }

            fn from_byte(byte: u8) -> Result<Self, DeError> {
                Err(__private::invalid_byte(byte, &concat!("a tuple of size ", $len)))
            }

            const PLAIN: Plain = Plain::array_of(size_of::<Self>(), &[$($name::PLAIN),+]);

            #[inline(always)]
            fn peek_plain(rest: &'de [u8]) -> Option<(Self, usize)> {
                let all = rest.len();
                let mut rest = plain_array(rest, $len)?;
                // A tuple's elements are evaluated in order.
                let value = ($(
                    {
                        let (element, len) = $name::peek_plain(rest)?;
                        rest = rest.get(len..)?;
                        element
                    },
                )+);
                Some((value, all.saturating_sub(rest.len())))
            }
        }
    };
}

/// What a tuple, tuple struct or sequence makes of a map: serde's default refusal.
#[cold]
pub fn refuse_map<T>(expecting: &dyn de::Expected) -> Result<T, DeError> {
    Err(de::Error::invalid_type(de::Unexpected::Map, expecting))
}

tuple_decode!(1 => A 0);
tuple_decode!(2 => A 0 B 1);
tuple_decode!(3 => A 0 B 1 C 2);
tuple_decode!(4 => A 0 B 1 C 2 D 3);
tuple_decode!(5 => A 0 B 1 C 2 D 3 E 4);
tuple_decode!(6 => A 0 B 1 C 2 D 3 E 4 F 5);

/// serde's expectation of an array: "an array of length N" ("an empty array" for none).
struct ArrayOf(usize);

impl de::Expected for ArrayOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("an empty array"),
            n => write!(f, "an array of length {n}"),
        }
    }
}

/// Arrays: read as serde's arrays are (`deserialize_tuple`), element by element, into an
/// array of defaults (without `unsafe`, an array cannot be built a fallible element at a time).
impl<'de, T: Decode<'de> + Default, const N: usize> Decode<'de> for [T; N] {
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        let expecting = ArrayOf(N);
        structure(
            de,
            &expecting,
            &[],
            size_of::<Self>(),
            |fields| {
                let mut read: [T; N] = core::array::from_fn(|_| T::default());
                for (index, slot) in read.iter_mut().enumerate() {
                    *slot = fields.field(index, &expecting)?;
                }
                fields.finish()?;
                Ok(read)
            },
            |_| refuse_map(&expecting),
        )
    }

    fn from_byte(byte: u8) -> Result<Self, DeError> {
        Err(__private::invalid_byte(byte, &ArrayOf(N)))
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    const MAX_LEN: Option<usize> = match T::MAX_LEN {
        Some(each) => match each.checked_mul(N) {
            Some(all) => all.checked_add(container_header_len(N)),
            None => None,
        },
        None => None,
    };
    const FIXED_LEN: bool = T::FIXED_LEN;

    #[inline]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_seq(self, out)
    }

    #[inline(always)]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        let mut out = Bounded::new(out, Self::MAX_LEN)?;
        out.array_header(N);
        for value in self {
            out.put(value)?;
        }
        out.done()
    }
}

/// Maps: read as `deserialize_map` and serde's map visitors read them, each key and value
/// paid for at twice its size (a table's slots).
macro_rules! map_decode {
    ($map:ident, $($bound:path),*) => {
        impl<'de, K: Decode<'de> $(+ $bound)*, V: Decode<'de>> Decode<'de>
            for alloc::collections::$map<K, V>
        {
            fn decode<const STRICT: bool>(
                de: &mut Deserializer<'de, STRICT>,
            ) -> Result<Self, DeError> {
                read_map(de, |map| {
                    let mut values = Self::new();
                    while let Some((key, value)) = map.next_entry::<K, V>()? {
                        values.insert(key, value);
                    }
                    Ok(values)
                })
            }
        }
    };
}

map_decode!(BTreeMap, Ord);

#[cfg(feature = "std")]
impl<'de, K, V, S> Decode<'de> for std::collections::HashMap<K, V, S>
where
    K: Decode<'de> + Eq + core::hash::Hash,
    V: Decode<'de>,
    S: core::hash::BuildHasher + Default,
{
    fn decode<const STRICT: bool>(de: &mut Deserializer<'de, STRICT>) -> Result<Self, DeError> {
        read_map(de, |map| {
            let hint = map.de.hint(map.de.open.innermost / 2);
            let mut values = std::collections::HashMap::with_capacity_and_hasher(
                cautious::<(K, V)>(hint),
                S::default(),
            );
            while let Some((key, value)) = map.next_entry::<K, V>()? {
                values.insert(key, value);
            }
            Ok(values)
        })
    }
}

/// The entries of a map collection.
pub struct MapEntries<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    keys: Paid<false>,
    values: Paid<false>,
}

impl<'de, const STRICT: bool> MapEntries<'_, 'de, STRICT> {
    /// The next entry, or `None` past the last.
    #[inline(always)]
    pub fn next_entry<K: Decode<'de>, V: Decode<'de>>(
        &mut self,
    ) -> Result<Option<(K, V)>, DeError> {
        let items = self.de.open.innermost;
        if items == 0 {
            return Ok(None);
        }
        self.de.open.innermost = items.saturating_sub(1);
        let count = items.div_ceil(2);
        self.keys
            .pay(self.de, size_of::<K>().saturating_mul(2), count)?;
        let key = K::decode(self.de)?;
        let items = self.de.open.innermost;
        self.de.open.innermost = items.saturating_sub(1);
        let count = items.div_ceil(2);
        self.values
            .pay(self.de, size_of::<V>().saturating_mul(2), count)?;
        let value = V::decode(self.de)?;
        Ok(Some((key, value)))
    }
}

fn read_map<'de, T, const STRICT: bool>(
    de: &mut Deserializer<'de, STRICT>,
    read: impl FnOnce(&mut MapEntries<'_, 'de, STRICT>) -> Result<T, DeError>,
) -> Result<T, DeError> {
    let item = de.next_in_recursion()?;
    let (offset, depth) = (item.offset, item.depth);
    if item.kind != Kind::Map {
        return refuse(de, item, &"a map");
    }
    let len = item.len();
    let around = de.open.enter(len.saturating_mul(2));
    let value = read(&mut MapEntries {
        de: &mut *de,
        keys: Paid::nothing(),
        values: Paid::nothing(),
    })
    .map_err(|e| e.placed(offset, depth))?;
    de.open.leave(around);
    if len > 0 {
        de.close();
    }
    Ok(value)
}

// Encoding: as `Serializer` writes each type.

/// Each leaf is written by one generic function (`$write`), into the `Vec` or room
/// reserved in it; `$bound` is the most bytes it takes: its marker and its widest form
/// (`fixed true` where every value takes exactly that many). Items in braces after it join
/// its `impl`: a sequence's own writer.
macro_rules! leaf_encode {
    (
        $(
            $ty:ty => $write:path, $bound:literal $(, fixed $fixed:literal)?
            $({ $($more:item)* })?
        );* $(;)?
    ) => {
        $(
            impl Encode for $ty {
                const MAX_LEN: Option<usize> = Some($bound);
                $(const FIXED_LEN: bool = $fixed;)?

                #[inline(always)]
                fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                    $write(*self, out);
                    Ok(())
                }

                #[inline(always)]
                fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
                    let mut out = Bounded::new(out, Self::MAX_LEN)?;
                    $write(*self, &mut out);
                    out.done()
                }

                $($($more)*)?
            }
        )*
    };
}

#[inline(always)]
fn write_unsigned(u: impl Into<u64>, out: &mut impl header::Sink) {
    header::write_uint(u.into(), out);
}

#[inline(always)]
fn write_signed(i: impl Into<i64>, out: &mut impl header::Sink) {
    let v = i.into();
    match u64::try_from(v) {
        Ok(u) => header::write_uint(u, out),
        Err(_) => header::write_negative(v, out),
    }
}

#[inline(always)]
fn write_usize(u: usize, out: &mut impl header::Sink) {
    header::write_uint(u as u64, out);
}

#[inline(always)]
fn write_isize(i: isize, out: &mut impl header::Sink) {
    write_signed(i as i64, out);
}

leaf_encode! {
    u16 => write_unsigned, 3;
    u32 => write_unsigned, 5;
    u64 => write_unsigned, 9;
    usize => write_usize, 9;
    i8 => write_signed, 2;
    i16 => write_signed, 3;
    i32 => write_signed, 5;
    i64 => write_signed, 9;
    isize => write_isize, 9;
    // A float is never narrowed: always its marker and its value.
    f64 => header::write_f64, 9, fixed true;
    bool => header::write_bool, 1, fixed true {
        /// One byte each, its marker: a map over the slice, which the `Vec` extends by with
        /// one room check.
        #[inline]
        fn encode_items(items: &[bool], out: &mut Vec<u8>) -> Result<(), EncodeError> {
            out.extend(
                items
                    .iter()
                    .map(|&b| if b { marker::TRUE } else { marker::FALSE }),
            );
            Ok(())
        }
    };
    u8 => header::write_u8, 2 {
        /// A long run of small values (each its own positive fixint) as the bytes themselves
        /// (a short run's copy costs more than it saves), the other runs by [`write_u8s`] into
        /// room for their widest forms, zeroed, written over and cut back as in
        /// [`write_bounded_items`].
        #[inline]
        fn encode_items(items: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
            for run in items.chunks(BOUNDED_RUN) {
                if run.len() >= 32 && run.iter().all(|&byte| byte < 0x80) {
                    out.extend_from_slice(run);
                    continue;
                }
                let start = out.len();
                let room = run.len().saturating_mul(2).saturating_add(1);
                out.resize(start.saturating_add(room.max(SHORT_RUN)), 0);
                match out.get_mut(start..).and_then(|room| write_u8s(run, room)) {
                    Some(written) => out.truncate(start.saturating_add(written)),
                    None => {
                        out.truncate(start);
                        crate::invariant::broken("a run of bytes longer than twice its length");
                        write_bounded_items(run, 2, out)?;
                    }
                }
            }
            Ok(())
        }
    };
}

impl Encode for f32 {
    const MAX_LEN: Option<usize> = Some(5);
    const FIXED_LEN: bool = true;

    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        header::write_f32(*self, out);
        Ok(())
    }

    /// With room for eight bytes, the marker and the value are written by one store, its
    /// last three bytes left for what follows to write over: in a struct of floats, that is
    /// one store a field instead of two.
    #[inline(always)]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        if let Some(wide) = out.first_chunk_mut::<8>() {
            let value = u64::from(u32::from_le_bytes(self.to_be_bytes()));
            *wide = (u64::from(marker::F32) | value << 8).to_le_bytes();
            return Some(5);
        }
        let mut out = Bounded::new(out, Self::MAX_LEN)?;
        header::write_f32(*self, &mut out);
        out.done()
    }
}

/// Writes `bytes` as `u8`s at the start of `room`, which has two bytes for each and one
/// more, and gives the bytes written (`None` if they did not fit). Each value is written as
/// two bytes, its marker (`uint 8`, or itself as a fixint) and itself, at its own position
/// past the one or two bytes of each value before it; a fixint's second byte is written over
/// by the next value or cut off. No branch depends on a value, which random bytes would
/// mispredict half the time, and the positions of eight values are found at once rather
/// than each from the last.
#[inline]
fn write_u8s(bytes: &[u8], room: &mut [u8]) -> Option<usize> {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    let mut written = 0usize;
    let mut eights = bytes.chunks_exact(8);
    for eight in &mut eights {
        let eight = u64::from_le_bytes(eight.try_into().ok()?);
        // Two bytes of room are left for each value from here on, and one more.
        let slot = room.get_mut(written..)?.first_chunk_mut::<17>()?;
        let wide = (eight >> 7) & LOW_BITS;
        // Byte i of `sums` is the number of wide values up to value i, included.
        let sums = wide.wrapping_mul(LOW_BITS);
        let before = (sums << 8).to_le_bytes();
        for (i, (byte, before)) in eight.to_le_bytes().into_iter().zip(before).enumerate() {
            let first = if byte >= 0x80 { marker::UINT8 } else { byte };
            // At most 14: the mask changes nothing, and shows the compiler the pair fits.
            let at = i.wrapping_add(usize::from(before)) & 15;
            if let Some(pair) = slot.get_mut(at..at.wrapping_add(2)) {
                pair.copy_from_slice(&[first, byte]);
            }
        }
        written = written.wrapping_add(8).wrapping_add((sums >> 56) as usize);
    }
    for &byte in eights.remainder() {
        let wide = byte >= 0x80;
        let first = if wide { marker::UINT8 } else { byte };
        room.get_mut(written..written.wrapping_add(2))?
            .copy_from_slice(&[first, byte]);
        written = written.wrapping_add(1).wrapping_add(usize::from(wide));
    }
    Some(written)
}

impl Encode for u128 {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.to_be_bytes().as_slice().encode(out)
    }
}

impl Encode for i128 {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.to_be_bytes().as_slice().encode(out)
    }
}

impl Encode for char {
    const MAX_LEN: Option<usize> = Some(5);

    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_str(self.encode_utf8(&mut [0; 4]), out)
    }

    #[inline(always)]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        let mut out = Bounded::new(out, Self::MAX_LEN)?;
        out.str(self.encode_utf8(&mut [0; 4]));
        out.done()
    }
}

impl Encode for str {
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_str(self, out)
    }
}

impl Encode for String {
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_str(self, out)
    }
}

/// A bin (what `&[u8]` decodes from; serde's own `[u8]` writes an array of integers, which
/// its `&[u8]` does not read back: this is `serde_bytes`'s form).
impl Encode for [u8] {
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        header::write_bin_len(wire_len(LengthOf::Bin, self.len())?, out);
        out.extend_from_slice(self);
        Ok(())
    }
}

impl Encode for () {
    const MAX_LEN: Option<usize> = Some(1);
    const FIXED_LEN: bool = true;

    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        header::write_nil(out);
        Ok(())
    }

    #[inline(always)]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        let mut out = Bounded::new(out, Self::MAX_LEN)?;
        header::write_nil(&mut out);
        out.done()
    }
}

// A reference or a box has no bound (`MAX_LEN` is `None`): it is how a type recurses, and a
// bound taken from what it points to would be defined by itself.
impl<T: Encode + ?Sized> Encode for &T {
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        (**self).encode(out)
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        (**self).encode(out)
    }
}

impl<T: Encode> Encode for Option<T> {
    const MAX_LEN: Option<usize> = bound_of_any(&[Some(1), T::MAX_LEN]);

    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            None => {
                header::write_nil(out);
                Ok(())
            }
            Some(value) => value.encode(out),
        }
    }

    #[inline(always)]
    fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
        match self {
            None => {
                let mut out = Bounded::new(out, Self::MAX_LEN)?;
                header::write_nil(&mut out);
                out.done()
            }
            Some(value) => value.encode_bounded(out),
        }
    }
}

/// Sequences of elements of at most `BOUNDED_ITEM` bytes are written a run at a time.
const BOUNDED_ITEM: usize = 128;

/// A sequence: its header and its elements.
#[inline]
fn write_seq<T: Encode>(items: &[T], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    write_array_len(items.len(), out)?;
    T::encode_items(items, out)
}

impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_seq(self, out)
    }
}

macro_rules! tuple_encode {
    ($len:literal => $($name:ident $index:tt)+) => {
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            const MAX_LEN: Option<usize> = bound_of_all(&[Some(1), $($name::MAX_LEN),+]);
            const FIXED_LEN: bool = true $(&& $name::FIXED_LEN)+;

            #[inline]
            fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                write_array_len($len, out)?;
                $(self.$index.encode(out)?;)+
                Ok(())
            }

            #[inline(always)]
            fn encode_bounded(&self, out: &mut [u8]) -> Option<usize> {
                let mut out = Bounded::new(out, Self::MAX_LEN)?;
                out.array_header($len);
                $(out.put(&self.$index)?;)+
                out.done()
            }
        }
    };
}

tuple_encode!(1 => A 0);
tuple_encode!(2 => A 0 B 1);
tuple_encode!(3 => A 0 B 1 C 2);
tuple_encode!(4 => A 0 B 1 C 2 D 3);
tuple_encode!(5 => A 0 B 1 C 2 D 3 E 4);
tuple_encode!(6 => A 0 B 1 C 2 D 3 E 4 F 5);

impl<K: Encode, V: Encode> Encode for alloc::collections::BTreeMap<K, V> {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_map_len(self.len(), out)?;
        for (key, value) in self {
            key.encode(out)?;
            value.encode(out)?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl<K: Encode, V: Encode, S> Encode for std::collections::HashMap<K, V, S> {
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        write_map_len(self.len(), out)?;
        for (key, value) in self {
            key.encode(out)?;
            value.encode(out)?;
        }
        Ok(())
    }
}
