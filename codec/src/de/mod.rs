//! Typed decoding with serde (feature `serde`): [`from_slice`] and [`Decoder::from_slice`] read
//! any `Deserialize` type through the token reader, so every check of every surface applies,
//! and borrow `&str`, `&[u8]` (`serde_bytes`) and `Cow` from the input.
//!
//! ```
//! use hardpack::{Decoder, Limit, Limits};
//!
//! #[derive(serde::Deserialize, Debug, PartialEq)]
//! struct Event<'a> {
//!     kind: &'a str,
//!     values: Vec<u32>,
//! }
//!
//! let bytes = hardpack::to_vec(&("click", [1, 2, 3]))?; // a struct is the array of its fields
//! let event: Event = hardpack::from_slice(&bytes)?;
//! assert_eq!(event, Event { kind: "click", values: vec![1, 2, 3] });
//!
//! // A budget of 8 bytes holds two u32 elements, not three.
//! let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, 8));
//! let err = tight.from_slice::<Event>(&bytes).unwrap_err();
//! assert_eq!(err.limit(), Some(Limit::AllocBytes));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The wire format
//!
//! rmp-serde's (see [`ser`](crate::ser)): a struct reads from an array or a map, an enum from a
//! str (unit variant) or a one-entry map, `Option` from nil or the value, a unit struct from nil
//! or an empty array, an ext from the [`EXT_STRUCT_NAME`](crate::ser::EXT_STRUCT_NAME) newtype,
//! [`Timestamp`](crate::timestamp::Timestamp) from ext -1, `i128`/`u128` from any integer that
//! fits or a 16-byte bin. A bin handed to a type that asks for a sequence, tuple or struct is the
//! sequence of its bytes, as rmp-serde hands it, so a `Vec<u8>` without `serde_bytes` reads what
//! another language wrote as bytes. Unlike rmp-serde, elements or bytes the type leaves unread
//! are an error (`the array has 1 elements more than the type takes`).
//!
//! A struct read from a map reads each key as a str, as any other str is read: within
//! `max_str_len`, and UTF-8 or refused where it starts. A key whose bytes are one of the names
//! the struct's `deserialize_struct` was handed reaches the field visitor as that name, so it
//! needs no UTF-8 check of its own (bytes equal to a `&str`'s are UTF-8).
//!
//! ## Depth
//!
//! serde recurses natively, through your types, once per level; the reader refuses a container
//! past `max_depth` before the recursion goes on. An `Option` holding a value and a newtype
//! struct recurse without opening a container (`struct Chain(Option<Box<Chain>>)` would recurse
//! forever on the single byte `0x01`, in rmp-serde and serde_json too), so each one whose content
//! is being read counts as a level as well: containers and these levels together stay within
//! `max_depth`. The stack a level takes, for a recursive enum through `Box<Self>` / `Vec<Self>` /
//! `HashMap<String, Self>` / `Option<Box<Self>>` (`cargo run -p hardpack --features serde
//! --example typed_stack`): about 1.4-3.2 KiB in a debug build and 0.2-0.5 KiB in release. So the
//! default `max_depth` of 128 is safe on a 2 MiB thread in both profiles and on a 256 KiB thread
//! in release; on a 256 KiB thread in a debug build use `max_depth` 32 or less.
//!
//! ## Budget
//!
//! What a visitor is handed is charged before it reads it, by its type's `size_of`:
//! - A sequence's elements: when the first is handed out, its type's size for every element
//!   the array holds (the reader's room check already bounds how many: a byte each); a later
//!   element of a larger type charges the difference for the elements left. A collection of
//!   one element type is charged once, and nothing per element.
//! - A map's keys and values: the same, at twice their size (a hash table keeps its buckets
//!   at most 7/8 full in a power-of-two array and grows by copying into one twice as large; a
//!   B-tree's nodes are part empty).
//! - A struct or tuple (its fields are stored inside it): its own size, once, when its array,
//!   map or bin is read; its fields are paid for from that, and their keys, which name them,
//!   are not charged. A visitor handed more than that size's worth (one that builds something
//!   else from a struct's fields) is charged for the rest as it comes.
//! - The bytes of each str or bin a visitor may copy (`deserialize_string`,
//!   `deserialize_byte_buf`, and `deserialize_any`, which cannot know), and every ext's data.
//!
//! serde cannot tell an inline struct from a boxed one, so a struct is charged at every level
//! it appears: a `Box`'s heap is never missed (a `Vec<Box<[u64; 16]>>` is charged the boxes'
//! 128 bytes and the vector's 8 for each), and an inline struct can be charged more than it
//! takes (a `Vec` of structs is charged each struct twice, as the element and as the struct).
//!
//! Size hints never exceed the elements the input left can hold (a byte each), nor the budget
//! left at [`HINT_ELEMENT_BYTES`] an element. What that leaves: a collection of elements over 64
//! bytes may reserve up front up to serde's own cap (1 MiB) per open collection, and a collection
//! growing past its hint holds up to twice what its elements were charged. So a typed decode's
//! peak heap stays within 2 × `max_alloc_bytes` plus 1 MiB per open collection (the
//! `serde_typed` fuzz target asserts it on every input; hash maps, B-trees, strings, boxes and
//! structs decoded under a budget of their own charge are measured against it by a test).
//!
//! What serde and your types allocate aborts on the allocator's refusal, as it does anywhere in
//! Rust; the budget is what bounds it. The owned, borrowed and validating decoders turn a refusal
//! into [`OutOfMemory`](crate::ErrorKind::OutOfMemory) instead.
//!
//! ## Errors
//!
//! [`from_slice`] returns [`Error`] with offset and depth; serde's messages are
//! [`Custom`](crate::ErrorKind::Custom) errors (`invalid type: string "1", expected i32 at
//! byte 1, depth 1`). A `Deserialize` implementation driven by [`Deserializer`] sees the same
//! error as [`DeError`], one pointer wide (see its docs for why). A strict decoder's `from_slice`
//! runs the strict checks too.

// First: its macro is used by the modules after it.
#[macro_use]
mod forward;

mod access;
#[cfg(feature = "derive")]
pub(crate) mod derive;
mod deserializer;
mod enums;
mod error;
mod field_key;
mod item;

pub use deserializer::{Deserializer, HINT_ELEMENT_BYTES};
pub use error::DeError;

#[cfg(feature = "std")]
use crate::prelude::*;

use serde::Deserialize;

use crate::decode::{DecodeStats, Decoder};
use crate::error::Error;
#[cfg(feature = "std")]
use crate::error::ErrorKind;

/// Decodes exactly one value of type `T` from `input` under `Limits::default()`, borrowing
/// strs and bytes where `T` does; bytes after it are an error.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Point<'a> { x: i32, name: &'a str }
///
/// let bytes = hardpack::to_vec(&(1, "origin"))?; // a struct is an array of its fields
/// let p: Point = hardpack::from_slice(&bytes)?;
/// assert_eq!(p, Point { x: 1, name: "origin" });
///
/// // A str where an integer is expected: the error says where.
/// let err = hardpack::from_slice::<Point>(&hardpack::to_vec(&("1", "o"))?).unwrap_err();
/// assert_eq!(err.to_string(), r#"invalid type: string "1", expected i32 at byte 1, depth 1"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn from_slice<'de, T: Deserialize<'de>>(input: &'de [u8]) -> Result<T, Error> {
    Decoder::default().from_slice(input)
}

impl Decoder {
    /// Decodes exactly one value of type `T` from `input` under this decoder's limits and, in
    /// strict mode, its checks (see [`from_slice`]). The invalid-UTF-8
    /// policy does not apply to typed decoding: strs are borrowed, so invalid UTF-8 is
    /// always refused.
    #[inline(always)]
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, input: &'de [u8]) -> Result<T, Error> {
        // A small value is decoded in the caller's frame: there is no frame to set up, and
        // the limits of a decoder the caller holds are often constants there. A larger one is
        // decoded out of line: inlined, the caller copied it out of the decode's result (whose
        // error is a `DeError`) in unaligned loads over the decode's stores, and ran slower.
        if size_of::<T>() <= INLINED_VALUE_BYTES {
            self.decode_whole_inline(input)
        } else {
            self.decode_whole_out_of_line(input)
        }
    }

    #[inline(always)]
    fn decode_whole_inline<'de, T: Deserialize<'de>>(&self, input: &'de [u8]) -> Result<T, Error> {
        let de = Deserializer::new(input, self.limits());
        if self.is_strict() {
            return whole_value(de.strict(), input.len());
        }
        whole_value(de, input.len())
    }

    #[inline(never)]
    fn decode_whole_out_of_line<'de, T: Deserialize<'de>>(
        &self,
        input: &'de [u8],
    ) -> Result<T, Error> {
        self.decode_whole_inline(input)
    }

    /// Decodes one value of type `T` from the start of `input` (bytes after it are left
    /// alone); returns it and the bytes it took.
    #[inline]
    pub fn from_slice_prefix<'de, T: Deserialize<'de>>(
        &self,
        input: &'de [u8],
    ) -> Result<(T, usize), Error> {
        let de = Deserializer::new(input, self.limits());
        if self.is_strict() {
            return value_prefix(de.strict());
        }
        value_prefix(de)
    }

    /// Like [`from_slice_prefix`](Self::from_slice_prefix), with what the decode charged to
    /// `max_alloc_bytes`, as [`decode_with_stats`](Decoder::decode_with_stats) gives it for a
    /// `Value`: what the charge model counted for this type, to set beside what it allocated.
    pub fn from_slice_with_stats<'de, T: Deserialize<'de>>(
        &self,
        input: &'de [u8],
    ) -> Result<(T, DecodeStats), Error> {
        let de = Deserializer::new(input, self.limits());
        if self.is_strict() {
            return value_with_stats(de.strict());
        }
        value_with_stats(de)
    }
}

/// The largest value [`Decoder::from_slice`] decodes inlined into its caller: about where,
/// measured, inlining stopped paying (a 48-byte struct gained, an 88-byte one lost).
const INLINED_VALUE_BYTES: usize = 64;

/// The one value `de` reads, and what the decode took and charged.
#[inline(always)]
fn value_with_stats<'de, T: Deserialize<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
) -> Result<(T, DecodeStats), Error> {
    // As in `whole_value`.
    match T::deserialize(&mut de) {
        Ok(value) => {
            let consumed = de.value_end()?;
            let charged_bytes = de.charged_bytes();
            Ok((
                value,
                DecodeStats {
                    consumed,
                    charged_bytes,
                },
            ))
        }
        // A refusal the type made after its read returned (an untagged enum's, once
        // buffered) has no place yet: it is the value's, which starts at byte 0.
        Err(e) => Err(e.placed(0, 0).into_error()),
    }
}

/// The one value `de` reads, which must take all `input_len` bytes. (Not by way of
/// [`value_prefix`]: the value would move through one more tuple, in memory.)
#[inline(always)]
fn whole_value<'de, T: Deserialize<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
    input_len: usize,
) -> Result<T, Error> {
    // The value handed back from inside the `Ok` arm: by way of `?` (its `ControlFlow`), or
    // taken out of the arm first, the value was copied once more on the way out.
    match T::deserialize(&mut de) {
        Ok(value) => {
            let consumed = de.value_end()?;
            Deserializer::<STRICT>::trailing(input_len, consumed)?;
            Ok(value)
        }
        // A refusal the type made after its read returned (an untagged enum's, once
        // buffered) has no place yet: it is the value's, which starts at byte 0.
        Err(e) => Err(e.placed(0, 0).into_error()),
    }
}

/// The one value `de` reads, and the bytes it took.
#[inline(always)]
fn value_prefix<'de, T: Deserialize<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
) -> Result<(T, usize), Error> {
    // As in `whole_value`.
    match T::deserialize(&mut de) {
        Ok(value) => {
            let consumed = de.value_end()?;
            Ok((value, consumed))
        }
        // A refusal the type made after its read returned (an untagged enum's, once
        // buffered) has no place yet: it is the value's, which starts at byte 0.
        Err(e) => Err(e.placed(0, 0).into_error()),
    }
}

#[cfg(feature = "std")]
impl Decoder {
    /// Reads `reader` to its end and decodes exactly one value of type `T` from what it gave,
    /// under this decoder's limits. The input buffer is held beside what decoding charges
    /// (so the two together stay within twice `max_alloc_bytes`), and bounded: reading stops with
    /// `LimitExceeded` on `max_alloc_bytes` as soon as the input outgrows it (it is read in
    /// 64 KiB chunks, each reserved only after that check), so a stream that never ends costs
    /// at most the budget. An I/O error is an [`ErrorKind::Io`] at the offset reached.
    ///
    /// ```
    /// let bytes = hardpack::to_vec(&(1u8, "two"))?;
    /// let value: (u8, String) = hardpack::Decoder::default().from_read(&bytes[..])?;
    /// assert_eq!(value, (1, "two".to_string()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_read<T: serde::de::DeserializeOwned, R: std::io::Read>(
        &self,
        mut reader: R,
    ) -> Result<T, Error> {
        const CHUNK: usize = 64 << 10;
        let max = self.limits().max_alloc_bytes;
        let mut input = Vec::new();
        loop {
            let at = input.len();
            if at >= max {
                // One byte more would be over the budget: is there one?
                let mut probe = [0u8; 1];
                match reader.read(&mut probe) {
                    Ok(0) => break,
                    Ok(_) => {
                        return Err(Error::new(
                            ErrorKind::LimitExceeded {
                                limit: crate::limits::Limit::AllocBytes,
                                max,
                                claimed: at.saturating_add(1),
                            },
                            at,
                            0,
                        ))
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(&e, at)),
                }
            }
            let room = CHUNK.min(max.saturating_sub(at));
            input
                .try_reserve_exact(room)
                .map_err(|_| Error::new(ErrorKind::OutOfMemory { bytes: room }, at, 0))?;
            input.resize(at.saturating_add(room), 0);
            let read = loop {
                match reader.read(input.get_mut(at..).unwrap_or_default()) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(&e, at)),
                }
            };
            input.truncate(at.saturating_add(read));
            if read == 0 {
                break;
            }
        }
        self.from_slice(&input)
    }
}
