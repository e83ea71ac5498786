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
//! [`Timestamp`] from ext -1, `i128`/`u128` from any integer that
//! fits or a 16-byte bin. A bin handed to a type that asks for a sequence, tuple or struct is the
//! sequence of its bytes, as rmp-serde hands it, so a `Vec<u8>` without `serde_bytes` reads what
//! another language wrote as bytes. Unlike rmp-serde, elements or bytes the type leaves unread
//! are an error (`the array has 1 elements more than the type takes`).
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
//! --example typed_stack`): about 1.4-3 KiB in a debug build and 0.2-0.5 KiB in release. So the
//! default `max_depth` of 128 is safe on a 2 MiB thread in both profiles and on a 256 KiB thread
//! in release; on a 256 KiB thread in a debug build use `max_depth` 32 or less.
//!
//! ## Budget
//!
//! Before each element a sequence or map hands out, `size_of` of the element's type is charged
//! (keys and values), and the bytes of each str or bin a visitor may copy
//! (`deserialize_string`, `deserialize_byte_buf`, and `deserialize_any`, which cannot know), and
//! every ext's data. serde cannot tell an inline struct from a boxed one, so nested struct fields
//! are charged at every level: the charge is never less than what is allocated, and can be more
//! (a 48-byte triangle of three-float vectors is charged 144 bytes).
//!
//! Size hints never exceed the elements the input left can hold (a byte each), nor the budget
//! left at [`HINT_ELEMENT_BYTES`] an element. What that leaves: a collection of elements over 64
//! bytes may reserve up front up to serde's own cap (1 MiB) per open collection, and a collection
//! growing past its hint holds up to twice what its elements were charged. So a typed decode's
//! peak heap stays within 2 × `max_alloc_bytes` plus 1 MiB per open collection (the
//! `serde_typed` fuzz target asserts it on every input).
//!
//! What serde and your types allocate aborts on the allocator's refusal, as it does anywhere in
//! Rust; the budget is what bounds it. The owned, borrowed and validating decoders turn a refusal
//! into [`ErrorKind::OutOfMemory`] instead.
//!
//! ## Errors
//!
//! [`from_slice`] returns [`Error`] with offset and depth; serde's messages are
//! [`ErrorKind::Custom`] (`invalid type: string "1", expected i32 at
//! byte 1, depth 1`). A `Deserialize` implementation driven by [`Deserializer`] sees the same
//! error as [`DeError`], one pointer wide (see its docs for why). A strict decoder's `from_slice`
//! runs the strict checks too.

use crate::prelude::*;
use core::fmt::Display;
use core::mem::size_of;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

use crate::decode::budget::Budget;
use crate::decode::read::{check_len, Reader, Sink};
use crate::decode::strict::Strict;
use crate::decode::{Decoder, InvalidUtf8};
use crate::error::{Error, ErrorKind};
use crate::limits::{Limit, Limits};
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::leaf::ShortText;
use crate::value::Value;
use crate::wire::header::{marker, scalar_kinds, Header};

/// Where serde's own errors (made without a position) are placed until the deserializer
/// knows the position: replaced by the offset of the item being read.
const UNPLACED: usize = usize::MAX;

impl de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(
            ErrorKind::Custom {
                message: msg.to_string(),
            },
            UNPLACED,
            0,
        )
    }
}

/// The error of [`Deserializer`], what a `Deserialize` implementation sees as `D::Error`:
/// an [`Error`] (kind, offset, depth) behind one pointer. [`from_slice`] and the other entry
/// points hand back the `Error` itself.
///
/// Boxed because every serde call returns a `Result` of it: with the 48-byte `Error`, each
/// field's result came back through memory, and each level of a recursive type's decode held
/// one on the stack (a quarter of what a level costs, see `examples/typed_stack.rs`).
/// An error is made once a decode; the box is its one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError(Box<Error>);

impl DeError {
    #[cold]
    #[inline(never)]
    fn new(kind: ErrorKind, offset: usize, depth: usize) -> Self {
        DeError(Box::new(Error::new(kind, offset, depth)))
    }

    /// What the type did wrong with the item at `offset` and `depth` (elements left unread,
    /// half an entry), said as serde's own messages are.
    #[cold]
    fn about_item(message: String, offset: usize, depth: usize) -> Self {
        DeError::new(ErrorKind::Custom { message }, offset, depth)
    }

    /// The error.
    pub fn into_error(self) -> Error {
        *self.0
    }

    /// This error, placed at `offset` and `depth` if serde made it without a position.
    #[cold]
    #[inline(never)]
    fn placed(mut self, offset: usize, depth: usize) -> Self {
        if self.0.offset() == UNPLACED {
            *self.0 = Error::new(self.0.kind().clone(), offset, depth);
        }
        self
    }
}

impl From<Error> for DeError {
    #[cold]
    #[inline(never)]
    fn from(error: Error) -> Self {
        DeError(Box::new(error))
    }
}

impl From<DeError> for Error {
    fn from(error: DeError) -> Self {
        error.into_error()
    }
}

impl core::ops::Deref for DeError {
    type Target = Error;

    fn deref(&self) -> &Error {
        &self.0
    }
}

impl Display for DeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        Display::fmt(&*self.0, f)
    }
}

impl core::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: Display>(msg: T) -> Self {
        DeError(Box::new(<Error as de::Error>::custom(msg)))
    }
}

/// The element size the size hints assume: a collection of larger elements may reserve up
/// front more than the budget has left (never more than serde's own cap, 1 MiB, per open
/// collection), and a collection growing past its hint may hold up to twice what was
/// charged for its elements.
pub const HINT_ELEMENT_BYTES: usize = 64;

/// Reads serde values from MessagePack, borrowing strs and bins from the input.
pub struct Deserializer<'de, const STRICT: bool = false> {
    /// The one reader, kept whole between items: rebuilt for each item from a copied cursor,
    /// it lived in memory and cost a load and a store of each field an item.
    reader: Reader<'de>,
    open: OpenContainers,
    budget: Budget,
    /// Strict mode's state: `Some` exactly when `STRICT` is true. (Boxed, so that a lenient
    /// decode sets up and drops one word, not the state's three vectors: a tenth of decoding
    /// a small struct.)
    strict: Option<Box<Strict<'de>>>,
}

/// The open containers of a typed decode, as two counts. serde's recursion keeps each open
/// container's own count of children left (in its `SeqAccess` or `MapAccess`), so the reader
/// needs no stack of counts, and no heap: only how many containers are open (the depth) and
/// how many items they still expect together (for the room check).
#[derive(Default)]
struct OpenContainers {
    depth: usize,
    /// Items the open containers still expect, the one being read included (0 at the top
    /// level).
    pending: usize,
    /// `Option`s holding a value and newtype structs whose content is being read: levels of
    /// serde recursion that open no container, counted with `depth` against `max_depth`.
    wrappers: usize,
}

impl OpenContainers {
    /// The levels serde is recursing through: open containers and open wrappers.
    #[inline(always)]
    fn levels(&self) -> usize {
        self.depth.saturating_add(self.wrappers)
    }
}

impl<'de> Deserializer<'de> {
    /// A deserializer of `input` under `limits`.
    pub fn new(input: &'de [u8], limits: &Limits) -> Self {
        Deserializer {
            reader: Reader::new(input, limits, InvalidUtf8::Reject),
            open: OpenContainers::default(),
            budget: Budget::new(limits.max_alloc_bytes),
            strict: None,
        }
    }

    /// The same deserializer in strict mode (see [`Decoder::strict`]): every item in the one
    /// form the encoder writes for it, every map key a str, no key twice in one map.
    pub fn strict(self) -> Deserializer<'de, true> {
        Deserializer {
            reader: self.reader,
            open: self.open,
            budget: self.budget,
            strict: Some(Box::new(Strict::new())),
        }
    }
}

impl<'de, const STRICT: bool> Deserializer<'de, STRICT> {
    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.reader.cursor().position()
    }

    /// Heap bytes charged so far (what the visitors were handed).
    pub fn charged_bytes(&self) -> usize {
        self.budget.used()
    }

    /// The next token, read inline: for the methods of leaf types (ints, strs, bytes), where
    /// the read's locals cost no stack that recursion multiplies.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self) -> Result<Item<'de>, Error> {
        self.read()
    }

    /// The next token, for the methods that recursion goes through (containers, options,
    /// enums): out of line in a debug build, where each inlined local takes its own stack
    /// slot in every frame of the recursion; inlined in an optimized one, where out of line
    /// the token it returned through memory stalled on store forwarding (its 8-byte stores
    /// read back as 16 bytes) and the stack a level grows only by 8-72 bytes inlined.
    #[cfg_attr(debug_assertions, inline(never))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_in_recursion(&mut self) -> Result<Item<'de>, Error> {
        self.next()
    }

    /// Reads the next item (every check in [`read`](crate::decode::read)) as a token; a
    /// container's children are the tokens that follow. (Inlined in optimized builds only:
    /// a debug build keeps each inlined local in its own stack slot, which multiplied the
    /// stack a level of recursion takes.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read(&mut self) -> Result<Item<'de>, Error> {
        // Strict mode is a type parameter, not a field tested per item: a branch to a strict
        // read beside the lenient one made lenient typed decoding a third slower.
        let start = Item::at(self.reader.cursor().position(), self.open.depth);
        let mut sink = TypedSink {
            open: &mut self.open,
            budget: &mut self.budget,
            item: start,
        };
        let strict = if STRICT {
            self.strict.as_deref_mut()
        } else {
            None
        };
        self.reader.step(&mut sink, strict)?;
        Ok(sink.item)
    }

    /// A container the reader opened has had all its children read.
    #[inline(always)]
    fn close(&mut self) {
        self.open.depth = self.open.depth.saturating_sub(1);
    }

    /// Reads the content of an `Option` holding a value or of a newtype struct with `read`,
    /// as one more level of recursion: refused, where the content starts, when the open
    /// containers and wrappers are already `max_depth` deep.
    fn within_wrapper<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        check_len(
            self.reader.limits(),
            Limit::Depth,
            self.open.levels().saturating_add(1),
        )
        .map_err(|kind| DeError::new(kind, self.position(), self.open.depth))?;
        self.open.wrappers = self.open.wrappers.saturating_add(1);
        let result = read(self);
        self.open.wrappers = self.open.wrappers.saturating_sub(1);
        result
    }

    /// Charges `bytes` for what starts where the reader stands.
    #[inline(always)]
    fn charge(&mut self, bytes: usize) -> Result<(), DeError> {
        self.charge_at(bytes, self.reader.cursor().position(), self.open.depth)
    }

    /// Charges `bytes` for the item at `offset` and `depth` (a refusal is placed there).
    #[inline(always)]
    fn charge_at(&mut self, bytes: usize, offset: usize, depth: usize) -> Result<(), DeError> {
        self.budget
            .charge(bytes)
            .map_err(|kind| DeError::new(kind, offset, depth))
    }

    /// The most elements worth hinting: no more than `left`, than the input can hold (a byte
    /// each), or than the budget has room for at [`HINT_ELEMENT_BYTES`] each.
    fn hint(&self, left: usize) -> usize {
        let budget_left = self.budget.left();
        left.min(self.reader.cursor().remaining())
            .min(budget_left / HINT_ELEMENT_BYTES)
    }

    /// `LEAF`: whether the method is a leaf type's (see [`next`](Self::next)).
    #[inline(always)]
    fn visit_next<const LEAF: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        charge_text: bool,
    ) -> Result<V::Value, DeError> {
        let read = if LEAF {
            self.next()?
        } else {
            self.next_in_recursion()?
        };
        self.visit_item(visitor, read, charge_text)
    }

    /// For the methods of bools, floats and `()`: the next item, when it is a plain scalar
    /// of a kind in `EXPECTS` (bits of [`scalar_kinds`]: not integers, which
    /// [`visit_integer`](Self::visit_integer) reads), read and visited on a path small enough
    /// to inline into the type's `Deserialize`; anything else (other scalars too: the
    /// visitor's error for them is made on the general path) by way of
    /// [`visit_next_read`](Self::visit_next_read).
    #[inline(always)]
    fn visit_scalar<const EXPECTS: u8, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // Strict mode checks each scalar's width: the general path.
        if STRICT {
            return self.visit_next_read(visitor, false);
        }
        let Some((header, len)) = self.reader.peek_plain_scalar::<EXPECTS>() else {
            return self.visit_next_read(visitor, false);
        };
        // As `visit_item` calls the visitor for the same scalar.
        let visited = match header {
            Header::Nil => visitor.visit_unit(),
            Header::Bool(b) => visitor.visit_bool(b),
            Header::F32(x) => visitor.visit_f32(x),
            Header::F64(x) => visitor.visit_f64(x),
            _ => return self.visit_next_read(visitor, false),
        };
        self.step_over_visited(visited, len)
    }

    /// After the visit of an item peeked and not yet read, `len` bytes long: a visitor's
    /// error placed where the item starts (where the reader stands), or the item stepped
    /// over and counted.
    #[inline(always)]
    fn step_over_visited<T>(
        &mut self,
        visited: Result<T, DeError>,
        len: usize,
    ) -> Result<T, DeError> {
        let value =
            visited.map_err(|e| e.placed(self.reader.cursor().position(), self.open.depth))?;
        self.reader.skip_peeked(len);
        self.open.pending = self.open.pending.saturating_sub(1);
        Ok(value)
    }

    /// For the methods of integer types: the next item, when it is a plain integer whose
    /// value `N` holds, visited as every integer is (a non-negative one as a `u64`, a
    /// negative one as an `i64`). That the value fits is what lets the type's own visitor
    /// lose its range check and error path once inlined, and the whole read inline into the
    /// type's `Deserialize`. Anything else, a value out of `N`'s range included, by way of
    /// [`visit_next_read`](Self::visit_next_read), where the visitor makes its error.
    #[inline(always)]
    fn visit_integer<N, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DeError>
    where
        N: TryFrom<u64> + TryFrom<i64>,
    {
        if STRICT {
            return self.visit_next_read(visitor, false);
        }
        let peeked = self
            .reader
            .peek_plain_scalar::<{ scalar_kinds::INTEGER }>()
            .and_then(|(header, len)| match header {
                Header::Uint(n) if N::try_from(n).is_ok() => Some((Ok(n), len)),
                Header::Int(n) if N::try_from(n).is_ok() => {
                    Some((u64::try_from(n).map_err(|_| n), len))
                }
                _ => None,
            });
        let Some((n, len)) = peeked else {
            return self.visit_next_read(visitor, false);
        };
        let visited = match n {
            Ok(n) => visitor.visit_u64(n),
            Err(n) => visitor.visit_i64(n),
        };
        self.step_over_visited(visited, len)
    }

    /// For `i128` (`SIGNED`) and `u128`: an integer of any width, or a bin of 16 bytes, the
    /// big-endian form rmp-serde and [`Serializer`](crate::ser::Serializer) write for them (rmp-serde
    /// reads it from a bin 8; any bin width is taken here, as elsewhere outside strict mode).
    /// A bin of another length goes to the visitor as bytes, which it refuses.
    fn visit_wide_integer<const SIGNED: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let is_bin = matches!(
            self.reader.cursor().peek_u8(),
            Some(marker::BIN8 | marker::BIN16 | marker::BIN32)
        );
        if !is_bin {
            return if SIGNED {
                self.visit_integer::<i128, V>(visitor)
            } else {
                self.visit_integer::<u128, V>(visitor)
            };
        }
        let item = self.next()?;
        let Ok(bytes) = <[u8; 16]>::try_from(item.bytes) else {
            return self.visit_item(visitor, item, false);
        };
        let visited = if SIGNED {
            visitor.visit_i128(i128::from_be_bytes(bytes))
        } else {
            visitor.visit_u128(u128::from_be_bytes(bytes))
        };
        visited.map_err(|e: DeError| e.placed(item.offset, item.depth))
    }

    /// For the methods of strs (`BIN` false) and bytes (`BIN` true): the next item, when it
    /// is one with a short header that passes every check, visited borrowed on a path small
    /// enough to inline (charged first when `charge` says the visitor may copy it); anything
    /// else, refusals included, by way of [`visit_next_read`](Self::visit_next_read).
    #[inline(always)]
    fn visit_text<const BIN: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        charge: bool,
    ) -> Result<V::Value, DeError> {
        if STRICT {
            return self.visit_next_read(visitor, charge);
        }
        let (offset, depth) = (self.reader.cursor().position(), self.open.depth);
        let (visited, len): (Result<V::Value, DeError>, usize) = if BIN {
            let Some((bytes, len)) = self.reader.peek_bin() else {
                return self.visit_next_read(visitor, charge);
            };
            if charge {
                self.charge_at(bytes.len(), offset, depth)?;
            }
            (visitor.visit_borrowed_bytes(bytes), len)
        } else {
            let Some((text, len)) = self.reader.peek_str() else {
                return self.visit_next_read(visitor, charge);
            };
            if charge {
                self.charge_at(text.len(), offset, depth)?;
            }
            (visitor.visit_borrowed_str(text), len)
        };
        self.step_over_visited(visited, len)
    }

    /// A leaf type's item that its fast path does not take, read on the general path out of
    /// line: the fast paths are then small enough to inline into the type's `Deserialize`.
    #[inline(never)]
    fn visit_next_read<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        charge_text: bool,
    ) -> Result<V::Value, DeError> {
        let read = self.next()?;
        self.visit_item(visitor, read, charge_text)
    }

    /// For a type that asks for a sequence (a sequence, tuple or struct): the next item, but
    /// a bin as the sequence of its bytes, as rmp-serde hands it (so a `Vec<u8>` without
    /// `serde_bytes` reads a bin another writer made), each byte charged as an element; the
    /// type must read them all, as it must an array's elements.
    fn visit_next_as_sequence<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DeError> {
        let item = self.next_in_recursion()?;
        if item.kind != Kind::Bin {
            return self.visit_item(visitor, item, false);
        }
        let (offset, depth) = (item.offset, item.depth);
        let mut elements = BinElements {
            de: self,
            bytes: item.bytes.iter(),
        };
        let value = visitor
            .visit_seq(&mut elements)
            .map_err(|e: DeError| e.placed(offset, depth))?;
        let left = elements.bytes.len();
        if left > 0 {
            return Err(DeError::about_item(
                format!("the bin has {left} bytes more than the type takes"),
                offset,
                depth,
            ));
        }
        Ok(value)
    }

    /// Calls `visit` for an item read, with what it holds, placing serde's errors there.
    fn visit_item<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        item: Item<'de>,
        charge_text: bool,
    ) -> Result<V::Value, DeError> {
        let (offset, depth) = (item.offset, item.depth);
        let result = match item.kind {
            Kind::Nil => visitor.visit_unit(),
            Kind::Bool => visitor.visit_bool(item.word != 0),
            Kind::Uint => visitor.visit_u64(item.word),
            Kind::Int => visitor.visit_i64(i64::from_ne_bytes(item.word.to_ne_bytes())),
            Kind::F32 => visitor.visit_f32(f32::from_bits(narrow_word(item.word))),
            Kind::F64 => visitor.visit_f64(f64::from_bits(item.word)),
            Kind::Str => {
                if charge_text {
                    self.charge_at(item.text.len(), offset, depth)?;
                }
                visitor.visit_borrowed_str(item.text)
            }
            Kind::Bin => {
                if charge_text {
                    self.charge_at(item.bytes.len(), offset, depth)?;
                }
                visitor.visit_borrowed_bytes(item.bytes)
            }
            Kind::Ext => {
                // Whatever reads an ext (Value's visitor, rmp-serde's ext types) copies its
                // data: charged on every path, not only through deserialize_any.
                self.charge_at(item.bytes.len(), offset, depth)?;
                visitor.visit_newtype_struct(ExtParts::new(item.ext_type(), item.bytes))
            }
            Kind::Timestamp => {
                self.charge_at(item.timestamp.to_ext_payload().1, offset, depth)?;
                visitor.visit_newtype_struct(ExtParts::timestamp(item.timestamp))
            }
            Kind::Array => self.visit_seq(visitor, item.len(), offset, depth),
            Kind::Map => self.visit_map(visitor, item.len(), offset, depth),
        };
        result.map_err(|e| e.placed(offset, depth))
    }

    fn visit_seq<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        offset: usize,
        depth: usize,
    ) -> Result<V::Value, DeError> {
        let mut left = len;
        let value = visitor.visit_seq(Elements {
            de: self,
            left: &mut left,
        })?;
        if left > 0 {
            return Err(DeError::about_item(
                format!("the array has {left} elements more than the type takes"),
                offset,
                depth,
            ));
        }
        if len > 0 {
            self.close();
        }
        Ok(value)
    }

    fn visit_map<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        offset: usize,
        depth: usize,
    ) -> Result<V::Value, DeError> {
        let (mut left, mut value_due) = (len, false);
        let value = visitor.visit_map(Entries {
            de: self,
            left: &mut left,
            value_due: &mut value_due,
        })?;
        if left > 0 || value_due {
            let message = if value_due {
                "the type read a map key and not its value".to_string()
            } else {
                format!("the map has {left} entries more than the type takes")
            };
            return Err(DeError::about_item(message, offset, depth));
        }
        if len > 0 {
            self.close();
        }
        Ok(value)
    }

    /// Where the value the type read ends, once it has read all of it.
    fn value_end(&self) -> Result<usize, Error> {
        if self.open.depth > 0 {
            // Every container that was read whole is closed: one still open means a visitor
            // went on after an error from inside it (an `Err` it dropped), and the rest of
            // the container would be read as what follows the value.
            return Err(Error::new(
                ErrorKind::Custom {
                    message: "the type left part of the value unread".into(),
                },
                self.position(),
                self.open.depth,
            ));
        }
        Ok(self.position())
    }

    /// After a value that took `consumed` of `input_len` bytes: nothing may follow it.
    fn trailing(input_len: usize, consumed: usize) -> Result<(), Error> {
        if consumed < input_len {
            return Err(Error::new(
                ErrorKind::TrailingBytes {
                    count: input_len.saturating_sub(consumed),
                },
                consumed,
                0,
            ));
        }
        Ok(())
    }
}

/// What one read step handed out, as plain fields. (Not the [`Token`] enum: an enum moved
/// from the read to the visit went through memory, written a field at a time and loaded 16
/// bytes at a time, and stalled on store forwarding; a struct of scalars stays in registers.)
#[derive(Clone, Copy)]
struct Item<'a> {
    /// Where the item starts.
    offset: usize,
    /// The containers open around it.
    depth: usize,
    kind: Kind,
    /// A bool (0 or 1), an integer (an `Int`'s bits), a float's bits, an array's or map's
    /// count, an ext's type (its byte).
    word: u64,
    text: &'a str,
    /// A bin's bytes, an ext's data.
    bytes: &'a [u8],
    timestamp: Timestamp,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nil,
    Bool,
    /// A non-negative integer.
    Uint,
    /// A negative integer.
    Int,
    F32,
    F64,
    Str,
    Bin,
    Ext,
    Timestamp,
    Array,
    Map,
}

impl<'a> Item<'a> {
    /// An item at `offset` and `depth`, its content still to be read.
    #[inline(always)]
    fn at(offset: usize, depth: usize) -> Self {
        Item {
            offset,
            depth,
            kind: Kind::Nil,
            word: 0,
            text: "",
            bytes: &[],
            timestamp: Timestamp::UNIX_EPOCH,
        }
    }

    #[inline(always)]
    fn set_scalar(&mut self, value: &Value) {
        match *value {
            Value::Nil => self.kind = Kind::Nil,
            Value::Bool(b) => {
                self.kind = Kind::Bool;
                self.word = u64::from(b);
            }
            Value::Integer(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => {
                    self.kind = Kind::Uint;
                    self.word = u;
                }
                (None, Some(i)) => {
                    self.kind = Kind::Int;
                    self.word = u64::from_ne_bytes(i.to_ne_bytes());
                }
                (None, None) => crate::invariant::broken("an integer neither u64 nor i64"),
            },
            Value::F32(x) => {
                self.kind = Kind::F32;
                self.word = u64::from(x.to_bits());
            }
            Value::F64(x) => {
                self.kind = Kind::F64;
                self.word = x.to_bits();
            }
            Value::Timestamp(ts) => {
                self.kind = Kind::Timestamp;
                self.timestamp = ts;
            }
            _ => crate::invariant::broken("a scalar item that owns heap"),
        }
    }

    /// An array's or map's count.
    #[inline(always)]
    fn len(&self) -> usize {
        usize::try_from(self.word).unwrap_or(usize::MAX)
    }

    fn ext_type(&self) -> i8 {
        i8::from_ne_bytes([self.word.to_ne_bytes()[0]])
    }

    /// What the item is, for messages.
    fn describe(&self) -> String {
        match self.kind {
            Kind::Nil => "nil".to_string(),
            Kind::Bool => "a bool".to_string(),
            Kind::Uint | Kind::Int => "an integer".to_string(),
            Kind::F32 | Kind::F64 => "a float".to_string(),
            Kind::Str => "a str".to_string(),
            Kind::Bin => "a bin".to_string(),
            Kind::Ext => "an ext".to_string(),
            Kind::Timestamp => "a timestamp".to_string(),
            Kind::Array => format!("an array of {}", self.len()),
            Kind::Map => format!("a map of {}", self.len()),
        }
    }
}

/// The low 32 bits of a word (an f32's bits).
#[inline(always)]
fn narrow_word(word: u64) -> u32 {
    let [a, b, c, d, ..] = word.to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

/// Holds the one item a read step hands out, and counts it in the open containers.
struct TypedSink<'s, 'a> {
    open: &'s mut OpenContainers,
    budget: &'s mut Budget,
    item: Item<'a>,
}

impl TypedSink<'_, '_> {
    /// One item read; true at the top level (the value is complete when the type's
    /// `Deserialize` returns: serde's recursion knows where each container ends).
    #[inline(always)]
    fn item_done(&mut self) -> bool {
        self.open.pending = self.open.pending.saturating_sub(1);
        self.open.depth == 0
    }
}

impl<'a> Sink<'a> for TypedSink<'_, 'a> {
    const SHORT_TEXT: bool = false;

    #[inline(always)]
    fn depth(&self) -> usize {
        self.open.depth
    }

    #[inline(always)]
    fn levels(&self) -> usize {
        self.open.levels()
    }

    #[inline(always)]
    fn pending_after_current(&self) -> usize {
        self.open.pending.saturating_sub(1)
    }

    #[inline(always)]
    fn scalar(&mut self, value: Value) -> bool {
        self.item.set_scalar(&value);
        core::mem::forget(value);
        self.item_done()
    }

    fn short_str(&mut self, _text: ShortText<'a>) -> bool {
        crate::invariant::broken("short text handed to a sink that asked for &str");
        self.item_done()
    }

    #[inline(always)]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Str;
        self.item.text = text;
        Ok(self.item_done())
    }

    fn invalid_str(&mut self, _bytes: &'a [u8], _limits: &Limits) -> Result<bool, ErrorKind> {
        crate::invariant::broken("invalid UTF-8 handed on though the reader rejects it");
        Ok(self.item_done())
    }

    #[inline(always)]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Bin;
        self.item.bytes = bytes;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Ext;
        self.item.word = u64::from(ext_type.to_ne_bytes()[0]);
        self.item.bytes = data;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        self.item.kind = if is_map { Kind::Map } else { Kind::Array };
        self.item.word = u64::try_from(len).unwrap_or(u64::MAX);
        if len == 0 {
            return Ok(self.item_done());
        }
        let items = if is_map { len.saturating_mul(2) } else { len };
        self.open.pending = self.open.pending.saturating_sub(1).saturating_add(items);
        self.open.depth = self.open.depth.saturating_add(1);
        Ok(false)
    }

    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        // Strict mode's heap.
        self.budget.charge(bytes)
    }
}

/// The elements of an array, for `visit_seq`. (Handed to the visitor by value, its counts
/// kept by the caller: handed `&mut`, each element went through serde's forwarding impl for
/// `&mut A`, which LLVM inlined or not by the size of what it held.)
/// The bytes of a bin handed out as a sequence's elements (see
/// [`Deserializer::visit_next_as_sequence`]), each charged `size_of` its type as an array's
/// element is.
struct BinElements<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    bytes: core::slice::Iter<'de, u8>,
}

impl<'de, const STRICT: bool> de::SeqAccess<'de> for BinElements<'_, 'de, STRICT> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(&byte) = self.bytes.next() else {
            return Ok(None);
        };
        self.de.charge(size_of::<T::Value>())?;
        seed.deserialize(byte.into_deserializer()).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        let budget_left = self.de.budget.left();
        Some(self.bytes.len().min(budget_left / HINT_ELEMENT_BYTES))
    }
}

struct Elements<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    left: &'a mut usize,
}

impl<'de, const STRICT: bool> de::SeqAccess<'de> for Elements<'_, 'de, STRICT> {
    type Error = DeError;

    /// What serde's derived code calls for each field: the type's `deserialize` called
    /// straight, inlined (by way of `next_element_seed` and `PhantomData`, LLVM inlined an
    /// f64 field in one build and not in the next, and an integer field in none).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element<T: Deserialize<'de>>(&mut self) -> Result<Option<T>, DeError> {
        self.element(size_of::<T>(), |de| T::deserialize(de))
    }

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        self.element(size_of::<T::Value>(), |de| seed.deserialize(de))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(*self.left))
    }
}

impl<'de, const STRICT: bool> Elements<'_, 'de, STRICT> {
    /// The next element, read by `read` once `bytes` (its size) are charged; `None` after
    /// the last.
    #[inline(always)]
    fn element<T>(
        &mut self,
        bytes: usize,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<Option<T>, DeError> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left = self.left.saturating_sub(1);
        self.de.charge(bytes)?;
        read(self.de).map(Some)
    }
}

/// The entries of a map, for `visit_map` (by value, as [`Elements`]).
struct Entries<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
    left: &'a mut usize,
    value_due: &'a mut bool,
}

impl<'de, const STRICT: bool> de::MapAccess<'de> for Entries<'_, 'de, STRICT> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left = self.left.saturating_sub(1);
        *self.value_due = true;
        self.de.charge(size_of::<K::Value>())?;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        *self.value_due = false;
        self.de.charge(size_of::<V::Value>())?;
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        // Two items an entry, each a byte at least: the reader refused the map's header
        // unless the input left held two bytes for each entry, so `left` is already at most
        // half of it.
        Some(self.de.hint(*self.left))
    }
}

macro_rules! scalar_fast_path {
    ($expects:path: $($method:ident)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                self.visit_scalar::<{ $expects }, V>(visitor)
            }
        )*
    };
}

macro_rules! integer_fast_path {
    ($($method:ident: $ty:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                self.visit_integer::<$ty, V>(visitor)
            }
        )*
    };
}

macro_rules! text_fast_path {
    (@bin str) => { false };
    (@bin bin) => { true };
    (@charge borrowed) => { false };
    (@charge owned) => { true };
    ($kind:ident, $copy:ident: $($method:ident)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                self.visit_text::<{ text_fast_path!(@bin $kind) }, V>(
                    visitor,
                    text_fast_path!(@charge $copy),
                )
            }
        )*
    };
}

macro_rules! forward_to_any {
    ($leaf:literal: $($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                self.visit_next::<$leaf, V>(visitor, false)
            }
        )*
    };
}

impl<'de, const STRICT: bool> de::Deserializer<'de> for &mut Deserializer<'de, STRICT> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // The visitor may copy what it is handed: charged.
        self.visit_next::<false, V>(visitor, true)
    }

    scalar_fast_path! { scalar_kinds::BOOL: deserialize_bool }
    integer_fast_path! {
        deserialize_i8: i8, deserialize_i16: i16, deserialize_i32: i32, deserialize_i64: i64,
        deserialize_u8: u8, deserialize_u16: u16, deserialize_u32: u32, deserialize_u64: u64,
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_wide_integer::<true, V>(visitor)
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_wide_integer::<false, V>(visitor)
    }
    scalar_fast_path! { scalar_kinds::FLOAT: deserialize_f32 deserialize_f64 }
    scalar_fast_path! { scalar_kinds::UNIT: deserialize_unit }

    forward_to_any! { true: deserialize_char }

    // A str or bin the visitor borrows; the owned ones are charged first (the visitor copies).
    text_fast_path! { str, borrowed: deserialize_str deserialize_identifier }
    text_fast_path! { bin, borrowed: deserialize_bytes }
    text_fast_path! { str, owned: deserialize_string }
    text_fast_path! { bin, owned: deserialize_byte_buf }

    forward_to_any! { false:
        deserialize_map deserialize_ignored_any
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // A look at the marker, not a read: a present value is read once, by its own type.
        if self.reader.cursor().peek_u8() == Some(marker::NIL) {
            let item = self.next_in_recursion()?;
            return visitor
                .visit_none()
                .map_err(|e: DeError| e.placed(item.offset, item.depth));
        }
        self.within_wrapper(|de| visitor.visit_some(de))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // rmp-serde writes a unit struct as an empty array; anything else goes to the
        // visitor as it is, for its error (or for a visitor that takes other forms).
        let item = self.next_in_recursion()?;
        if item.kind == Kind::Array && item.len() == 0 {
            return visitor
                .visit_unit()
                .map_err(|e: DeError| e.placed(item.offset, item.depth));
        }
        self.visit_item(visitor, item, false)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == crate::ser::EXT_STRUCT_NAME {
            return self.visit_next::<false, V>(visitor, false);
        }
        self.within_wrapper(|de| visitor.visit_newtype_struct(de))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let item = self.next_in_recursion()?;
        let (offset, depth) = (item.offset, item.depth);
        let result = match item.kind {
            Kind::Str => visitor.visit_enum(item.text.into_deserializer()),
            Kind::Map if item.len() == 1 => {
                // The entry's two items are read when the open containers expect two fewer.
                let entry_read_at = self.open.pending.saturating_sub(2);
                let variant = visitor.visit_enum(VariantOf { de: &mut *self })?;
                if self.open.pending != entry_read_at {
                    return Err(DeError::about_item(
                        "the type read an enum's variant and not its content".into(),
                        offset,
                        depth,
                    ));
                }
                self.close();
                Ok(variant)
            }
            _ => Err(de::Error::custom(format!(
                "expected an enum (a str, or a map of one entry), found {}",
                item.describe()
            ))),
        };
        result.map_err(|e: DeError| e.placed(offset, depth))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// An enum written as a one-entry map: the key names the variant, the value is its content.
struct VariantOf<'a, 'de, const STRICT: bool> {
    de: &'a mut Deserializer<'de, STRICT>,
}

impl<'de, const STRICT: bool> de::EnumAccess<'de> for VariantOf<'_, 'de, STRICT> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), DeError> {
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de, const STRICT: bool> de::VariantAccess<'de> for VariantOf<'_, 'de, STRICT> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_map(&mut *self.de, visitor)
    }
}

/// An ext as rmp-serde hands it to a visitor: a newtype holding an `(i8, bytes)` sequence.
struct ExtParts<'de> {
    ext_type: i8,
    data: ExtData<'de>,
}

enum ExtData<'de> {
    Borrowed(&'de [u8]),
    Timestamp([u8; 12], usize),
}

impl<'de> ExtParts<'de> {
    fn new(ext_type: i8, data: &'de [u8]) -> Self {
        ExtParts {
            ext_type,
            data: ExtData::Borrowed(data),
        }
    }

    fn timestamp(ts: Timestamp) -> Self {
        let (buf, len) = ts.to_ext_payload();
        ExtParts {
            ext_type: TIMESTAMP_EXT_TYPE,
            data: ExtData::Timestamp(buf, len),
        }
    }
}

impl<'de> de::Deserializer<'de> for ExtParts<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_seq(ExtSeq { parts: self, at: 0 })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct ExtSeq<'de> {
    parts: ExtParts<'de>,
    at: u8,
}

impl<'de> de::SeqAccess<'de> for ExtSeq<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        self.at = self.at.saturating_add(1);
        match self.at {
            1 => seed
                .deserialize(self.parts.ext_type.into_deserializer())
                .map(Some),
            2 => match &self.parts.data {
                ExtData::Borrowed(data) => seed
                    .deserialize(de::value::BorrowedBytesDeserializer::new(data))
                    .map(Some),
                ExtData::Timestamp(buf, len) => seed
                    .deserialize(de::value::BytesDeserializer::new(
                        buf.get(..*len).unwrap_or(buf),
                    ))
                    .map(Some),
            },
            _ => Ok(None),
        }
    }
}

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
pub fn from_slice<'de, T: Deserialize<'de>>(input: &'de [u8]) -> Result<T, Error> {
    Decoder::default().from_slice(input)
}

impl Decoder {
    /// Decodes exactly one value of type `T` from `input` under this decoder's limits and, in
    /// strict mode, its checks (see [`from_slice`]). The invalid-UTF-8
    /// policy does not apply to typed decoding: strs are borrowed, so invalid UTF-8 is
    /// always refused.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, input: &'de [u8]) -> Result<T, Error> {
        let de = Deserializer::new(input, self.limits());
        if self.is_strict() {
            return whole_value(de.strict(), input.len());
        }
        whole_value(de, input.len())
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
}

/// The one value `de` reads, which must take all `input_len` bytes. (Not by way of
/// [`value_prefix`]: the value moved through one more tuple cost a tenth of decoding a
/// small struct.)
#[inline(always)]
fn whole_value<'de, T: Deserialize<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
    input_len: usize,
) -> Result<T, Error> {
    let value = T::deserialize(&mut de)?;
    let consumed = de.value_end()?;
    Deserializer::<STRICT>::trailing(input_len, consumed)?;
    Ok(value)
}

/// The one value `de` reads, and the bytes it took.
#[inline(always)]
fn value_prefix<'de, T: Deserialize<'de>, const STRICT: bool>(
    mut de: Deserializer<'de, STRICT>,
) -> Result<(T, usize), Error> {
    let value = T::deserialize(&mut de)?;
    let consumed = de.value_end()?;
    Ok((value, consumed))
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
    pub fn from_read<T: de::DeserializeOwned, R: std::io::Read>(
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

impl<'de> Deserialize<'de> for Timestamp {
    /// From ext -1 (any of its three forms).
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimestampVisitor;
        impl<'de> Visitor<'de> for TimestampVisitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a timestamp (ext -1)")
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Timestamp, D::Error> {
                let (ext_type, ExtBytes(data)): (i8, ExtBytes) =
                    Deserialize::deserialize(deserializer)?;
                if ext_type != TIMESTAMP_EXT_TYPE {
                    return Err(de::Error::custom(format!(
                        "expected a timestamp (ext -1), found ext {ext_type}"
                    )));
                }
                Timestamp::from_ext_payload(&data)
                    .map_err(|e| de::Error::custom(format!("invalid timestamp: {e:?}")))
            }
        }
        deserializer.deserialize_newtype_struct(crate::ser::EXT_STRUCT_NAME, TimestampVisitor)
    }
}

impl<'de> Deserialize<'de> for crate::value::Value {
    /// Any document: nil, bool, integers, floats (width kept), str, bin, arrays, maps (every
    /// key type, duplicates kept), ext and timestamps (ext -1). From other serde formats too
    /// (`serde_json::from_str::<Value>`). serde's model nests one call per level, so this
    /// recurses once per level of the input (hardpack's decoders stop at `max_depth`).
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = crate::value::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("any MessagePack value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Nil)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Nil)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f32<E>(self, v: f32) -> Result<Self::Value, E> {
        Ok(crate::value::Value::F32(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(crate::value::Value::F64(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Bin(v.into()))
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let (ext_type, ExtBytes(data)): (i8, ExtBytes) = Deserialize::deserialize(d)?;
        if ext_type == TIMESTAMP_EXT_TYPE {
            return Timestamp::from_ext_payload(&data)
                .map(crate::value::Value::Timestamp)
                .map_err(|e| de::Error::custom(format!("invalid timestamp: {e:?}")));
        }
        Ok(crate::value::Value::Ext(crate::value::Ext::new(
            ext_type, &data,
        )))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // serde's own cap on what a hint may reserve.
        let cap = seq.size_hint().unwrap_or(0).min(4096);
        let mut items: Vec<crate::value::Value> = Vec::with_capacity(cap);
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(crate::value::Value::from(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let cap = map.size_hint().unwrap_or(0).min(4096);
        let mut entries: Vec<(crate::value::Value, crate::value::Value)> = Vec::with_capacity(cap);
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(crate::value::Value::from(entries))
    }
}

/// An ext's data, borrowed from the input or not (a timestamp's is rebuilt), as bytes.
struct ExtBytes(Vec<u8>);

impl<'de> Deserialize<'de> for ExtBytes {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = ExtBytes;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an ext's data")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ExtBytes, E> {
                Ok(ExtBytes(v.to_vec()))
            }
        }
        deserializer.deserialize_bytes(BytesVisitor)
    }
}
