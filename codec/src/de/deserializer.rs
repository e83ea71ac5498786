//! The deserializer: the reader's items handed to serde's visitors, with the depth counted
//! and the budget charged.

use crate::prelude::*;

use serde::de::{self, IntoDeserializer, Visitor};

use super::access::{BinElements, Elements, Entries, Paid};
use super::enums::{ExtParts, VariantOf};
use super::error::DeError;
use super::item::{narrow_word, Item, Kind, TypedSink};
use crate::decode::budget::Budget;
use crate::decode::read::Reader;
use crate::decode::strict::Strict;
use crate::decode::InvalidUtf8;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::wire::header::{marker, scalar_kinds, Header};

/// The element size the size hints assume: a collection of larger elements may reserve up
/// front more than the budget has left (never more than serde's own cap, 1 MiB, per open
/// collection), and a collection growing past its hint may hold up to twice what was
/// charged for its elements.
pub const HINT_ELEMENT_BYTES: usize = 64;

/// Reads serde values from MessagePack, borrowing strs and bins from the input.
pub struct Deserializer<'de, const STRICT: bool = false> {
    /// The one reader, kept whole between items: rebuilt for each item from a copied cursor,
    /// it lived in memory and cost a load and a store of each field an item.
    pub(super) reader: Reader<'de>,
    pub(super) open: OpenContainers,
    pub(super) budget: Budget,
    /// Strict mode's state: `Some` exactly when `STRICT` is true. (Boxed, so that a lenient
    /// decode sets up and drops one word, not the state's three vectors, which a small
    /// struct's decode would otherwise pay for every time.)
    pub(super) strict: Option<Box<Strict<'de>>>,
}

/// The open containers of a typed decode, as counts. serde's recursion keeps each open
/// container's place on the native stack (its `SeqAccess` or `MapAccess`), so the reader
/// needs no stack of counts and no heap: how many containers are open (the depth), and how
/// many items they still expect after the one being read (for the room check), split so that
/// only the innermost container's count moves as its items are handed out, and a scalar read
/// touches neither.
#[derive(Default)]
pub(super) struct OpenContainers {
    pub(super) depth: usize,
    /// Items the innermost open container still expects after the one being read (a map's
    /// keys and values both count); 0 at the top level. Its `SeqAccess` or `MapAccess` takes
    /// one off as it hands each out.
    pub(super) innermost: usize,
    /// Items the containers around the innermost still expect after theirs being read.
    pub(super) outer: usize,
    /// `Option`s holding a value and newtype structs whose content is being read: levels of
    /// serde recursion that open no container, counted with `depth` against `max_depth`.
    pub(super) wrappers: usize,
}

/// The counts of the containers around one that opens, kept on the native stack while its
/// items are read (see [`OpenContainers::enter`]).
#[derive(Clone, Copy)]
pub(super) struct Around {
    innermost: usize,
    outer: usize,
}

impl OpenContainers {
    /// The levels serde is recursing through: open containers and open wrappers.
    #[inline(always)]
    pub(super) fn levels(&self) -> usize {
        self.depth.saturating_add(self.wrappers)
    }

    /// Items the open containers still expect after the one being read.
    #[inline(always)]
    pub(super) fn pending_after_current(&self) -> usize {
        self.outer.saturating_add(self.innermost)
    }

    /// A container the reader opened, of `items` items, becomes the innermost; returns the
    /// counts around it, for [`leave`](Self::leave).
    #[inline(always)]
    pub(super) fn enter(&mut self, items: usize) -> Around {
        let around = Around {
            innermost: self.innermost,
            outer: self.outer,
        };
        self.outer = self.pending_after_current();
        self.innermost = items;
        around
    }

    /// The innermost container is done: the one around it is innermost again.
    #[inline(always)]
    pub(super) fn leave(&mut self, around: Around) {
        self.innermost = around.innermost;
        self.outer = around.outer;
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

    /// The same deserializer in strict mode (see [`Decoder::strict`](crate::Decoder::strict)): every item in the one
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
    pub(super) fn next(&mut self) -> Result<Item<'de>, Error> {
        self.read()
    }

    /// The next token, for the methods that recursion goes through (containers, options,
    /// enums): out of line in a debug build, where each inlined local takes its own stack
    /// slot in every frame of the recursion; inlined in an optimized one, where out of line
    /// the token it returned through memory stalled on store forwarding (its 8-byte stores
    /// read back as 16 bytes) and the stack a level grows only by 8-72 bytes inlined.
    #[cfg_attr(debug_assertions, inline(never))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn next_in_recursion(&mut self) -> Result<Item<'de>, Error> {
        self.next()
    }

    /// Reads the next item (every check in [`read`](crate::decode::read)) as a token; a
    /// container's children are the tokens that follow. (Inlined in optimized builds only:
    /// a debug build keeps each inlined local in its own stack slot, which multiplied the
    /// stack a level of recursion takes.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn read(&mut self) -> Result<Item<'de>, Error> {
        // Strict mode is a type parameter, not a field tested per item: a branch to a strict
        // read beside the lenient one kept the lenient path from inlining its read.
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

    /// Reads the next item where it is an array header (in any form) that passes every
    /// check the general read makes on one (`max_array_len`, room for its elements and for
    /// what the open containers still expect after it, `max_depth`), entered as that read
    /// enters it; gives where it starts, the depth there and its length. `None`, nothing
    /// read, for anything else, a refusal included, and in strict mode (which checks each
    /// header's form): the general read reads it.
    #[inline(always)]
    #[cfg(feature = "derive")]
    pub(super) fn array_passing_checks(&mut self) -> Option<(usize, usize, usize)> {
        if STRICT {
            return None;
        }
        let (len, header) = super::derive::array_header(self.reader.cursor().rest())?;
        let open = (self.open.levels(), self.open.pending_after_current());
        if !self.reader.array_passes(len, header, open) {
            return None;
        }
        let start = (self.reader.cursor().position(), self.open.depth);
        self.reader.skip_peeked(header);
        if len > 0 {
            self.open.depth = self.open.depth.saturating_add(1);
        }
        Some((start.0, start.1, len))
    }

    /// A container the reader opened has had all its children read.
    #[inline(always)]
    pub(super) fn close(&mut self) {
        self.open.depth = self.open.depth.saturating_sub(1);
    }

    /// Reads the content of an `Option` holding a value or of a newtype struct with `read`,
    /// as one more level of recursion: refused, where the content starts, when the open
    /// containers and wrappers are already `max_depth` deep.
    #[inline(always)]
    pub(super) fn within_wrapper<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        if let Err(kind) = self.reader.check_deeper(self.open.levels()) {
            return Err(self.refused_here(kind));
        }
        self.open.wrappers = self.open.wrappers.saturating_add(1);
        let result = read(self);
        self.open.wrappers = self.open.wrappers.saturating_sub(1);
        result
    }

    /// A refusal placed where the reader stands.
    #[cold]
    #[inline(never)]
    fn refused_here(&self, kind: ErrorKind) -> DeError {
        DeError::new(kind, self.position(), self.open.depth)
    }

    /// Charges `bytes` for what starts where the reader stands.
    #[inline(always)]
    pub(super) fn charge(&mut self, bytes: usize) -> Result<(), DeError> {
        self.charge_at(bytes, self.reader.cursor().position(), self.open.depth)
    }

    /// Charges `bytes` for the item at `offset` and `depth` (a refusal is placed there).
    #[inline(always)]
    pub(super) fn charge_at(
        &mut self,
        bytes: usize,
        offset: usize,
        depth: usize,
    ) -> Result<(), DeError> {
        self.budget
            .charge(bytes)
            .map_err(|kind| DeError::new(kind, offset, depth))
    }

    /// The most elements worth hinting: no more than `left`, than the input can hold (a byte
    /// each), or than the budget has room for at [`HINT_ELEMENT_BYTES`] each.
    pub(super) fn hint(&self, left: usize) -> usize {
        let budget_left = self.budget.left();
        left.min(self.reader.cursor().remaining())
            .min(budget_left / HINT_ELEMENT_BYTES)
    }

    /// `LEAF`: whether the method is a leaf type's (see [`next`](Self::next)).
    #[inline(always)]
    pub(super) fn visit_next<const LEAF: bool, V: Visitor<'de>>(
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
    pub(super) fn visit_scalar<const EXPECTS: u8, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // Strict mode checks each scalar's width: the general path.
        if STRICT {
            return self.visit_next_read(visitor, false);
        }
        if EXPECTS == scalar_kinds::BOOL {
            // The value is the marker's low bit, not a branch: true and false in no pattern
            // are what a branch predictor cannot learn.
            if let Some(m) = self
                .reader
                .cursor()
                .peek_u8()
                .filter(|m| m | 1 == marker::TRUE)
            {
                let visited = visitor.visit_bool(m & 1 == 1);
                return self.step_over_visited(visited, 1);
            }
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

    /// For the methods of `f32` (`F64` false) and `f64`: the next item when it is a float of
    /// the type's own width (what a writer of the type writes), visited on a path of one
    /// marker comparison; anything else as [`visit_scalar`](Self::visit_scalar) reads it.
    #[inline(always)]
    pub(super) fn visit_float<const F64: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if !STRICT {
            let cursor = self.reader.cursor();
            if F64 {
                if let Some(&[marker::F64, ref bits @ ..]) = cursor.window::<9>() {
                    let visited = visitor.visit_f64(f64::from_be_bytes(*bits));
                    return self.step_over_visited(visited, 9);
                }
            } else if let Some(&[marker::F32, ref bits @ ..]) = cursor.window::<5>() {
                let visited = visitor.visit_f32(f32::from_be_bytes(*bits));
                return self.step_over_visited(visited, 5);
            }
        }
        self.visit_scalar::<{ scalar_kinds::FLOAT }, V>(visitor)
    }

    /// After the visit of an item peeked and not yet read, `len` bytes long: a visitor's
    /// error placed where the item starts (where the reader stands), or the item stepped
    /// over and counted.
    #[inline(always)]
    pub(super) fn step_over_visited<T>(
        &mut self,
        visited: Result<T, DeError>,
        len: usize,
    ) -> Result<T, DeError> {
        let value =
            visited.map_err(|e| e.placed(self.reader.cursor().position(), self.open.depth))?;
        self.reader.skip_peeked(len);
        Ok(value)
    }

    /// For the methods of integer types: the next item, when it is a plain integer whose
    /// value `N` holds, visited as every integer is (a non-negative one as a `u64`, a
    /// negative one as an `i64`). That the value fits is what lets the type's own visitor
    /// lose its range check and error path once inlined, and the whole read inline into the
    /// type's `Deserialize`. Anything else, a value out of `N`'s range included, by way of
    /// [`visit_next_read`](Self::visit_next_read), where the visitor makes its error.
    #[inline(always)]
    pub(super) fn visit_integer<N, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError>
    where
        N: TryFrom<u64> + TryFrom<i64>,
    {
        if STRICT {
            return self.visit_next_read(visitor, false);
        }
        // A type of 16 bits or more holds values of many widths, and the wide forms' jump
        // table serves them all; a byte's values are all short forms.
        if core::mem::size_of::<N>() > 1 {
            return self.visit_wide_form::<N, V>(visitor);
        }
        let holds_u8 = N::try_from(u64::from(u8::MAX)).is_ok();
        let holds_negative = N::try_from(-1i64).is_ok();
        let short = match (holds_u8, holds_negative) {
            (true, true) => self.reader.peek_short_integer::<true, true>(),
            (true, false) => self.reader.peek_short_integer::<true, false>(),
            (false, true) => self.reader.peek_short_integer::<false, true>(),
            (false, false) => self.reader.peek_short_integer::<false, false>(),
        };
        if let Some((n, len)) = short {
            let visited = match n {
                Ok(n) => visitor.visit_u64(n),
                Err(n) => visitor.visit_i64(n),
            };
            return self.step_over_visited(visited, len);
        }
        // Out of line (only a value a byte does not hold comes here), so that the byte's read
        // stays small enough to inline into a loop over its elements.
        self.visit_wide_form_out_of_line::<N, V>(visitor)
    }

    #[inline(never)]
    fn visit_wide_form_out_of_line<N, V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value, DeError>
    where
        N: TryFrom<u64> + TryFrom<i64>,
    {
        self.visit_wide_form::<N, V>(visitor)
    }

    /// An integer in any form (the short ones too), when `N` holds its value, visited as
    /// [`visit_integer`](Self::visit_integer) says; anything else by way of
    /// [`visit_next_read`](Self::visit_next_read).
    #[inline(always)]
    fn visit_wide_form<N, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DeError>
    where
        N: TryFrom<u64> + TryFrom<i64>,
    {
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
    pub(super) fn visit_wide_integer<const SIGNED: bool, V: Visitor<'de>>(
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
    pub(super) fn visit_text<const BIN: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        charge: bool,
    ) -> Result<V::Value, DeError> {
        if STRICT {
            return self.visit_next_read(visitor, charge);
        }
        // A refused charge is placed where the reader stands: at the item, only peeked.
        let (visited, len): (Result<V::Value, DeError>, usize) = if BIN {
            let Some((bytes, len)) = self.reader.peek_bin() else {
                return self.visit_next_read(visitor, charge);
            };
            if charge {
                self.charge(bytes.len())?;
            }
            (visitor.visit_borrowed_bytes(bytes), len)
        } else {
            let Some((text, len)) = self.reader.peek_str() else {
                return self.visit_next_read(visitor, charge);
            };
            if charge {
                self.charge(text.len())?;
            }
            (visitor.visit_borrowed_str(text), len)
        };
        self.step_over_visited(visited, len)
    }

    /// A leaf type's item that its fast path does not take, read on the general path out of
    /// line: the fast paths are then small enough to inline into the type's `Deserialize`.
    #[inline(never)]
    pub(super) fn visit_next_read<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        charge_text: bool,
    ) -> Result<V::Value, DeError> {
        let read = self.next()?;
        self.visit_item(visitor, read, charge_text)
    }

    /// For a type that asks for a sequence (a sequence, tuple or struct): the next item, but
    /// a bin as the sequence of its bytes, as rmp-serde hands it (so a `Vec<u8>` without
    /// `serde_bytes` reads a bin another writer made), each byte paid for as an element; the
    /// type must read them all, as it must an array's elements. `INLINE` for a struct or a
    /// tuple, whose fields are stored in the value its visitor builds: `size_of` that value is
    /// charged once, when its array, map or bin is read, and pays for the fields (see
    /// [`Paid`]).
    pub(super) fn visit_next_as_sequence<const INLINE: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        fields: &'static [&'static str],
    ) -> Result<V::Value, DeError> {
        let item = self.next_in_recursion()?;
        let (offset, depth) = (item.offset, item.depth);
        if !matches!(item.kind, Kind::Array | Kind::Map | Kind::Bin) {
            return self.visit_item(visitor, item, false);
        }
        let paid = if INLINE {
            let size = core::mem::size_of::<V::Value>();
            self.charge_at(size, offset, depth)?;
            Paid::<INLINE>::inline(size)
        } else {
            Paid::nothing()
        };
        // Placed in each arm, not once after the `match`: that way the value was copied once
        // more on its way out.
        let place = |e: DeError| e.placed(offset, depth);
        match item.kind {
            Kind::Map => self
                .visit_struct_map(visitor, item.len(), paid, fields)
                .map_err(place),
            Kind::Array => self.visit_seq(visitor, item.len(), paid).map_err(place),
            _ => self
                .visit_bin_as_seq(visitor, item.bytes, paid)
                .map_err(place),
        }
    }

    /// A bin's bytes handed to `visitor` as a sequence's elements.
    fn visit_bin_as_seq<const INLINE: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        bytes: &'de [u8],
        paid: Paid<INLINE>,
    ) -> Result<V::Value, DeError> {
        let mut elements = BinElements {
            de: self,
            bytes: bytes.iter(),
            paid,
        };
        let value = visitor.visit_seq(&mut elements)?;
        let left = elements.bytes.len();
        if left > 0 {
            // As in `visit_seq`.
            drop(value);
            return Err(de::Error::custom(format!(
                "the bin has {left} bytes more than the type takes"
            )));
        }
        Ok(value)
    }

    /// Calls `visit` for an item read, with what it holds, placing serde's errors there.
    pub(super) fn visit_item<V: Visitor<'de>>(
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
            Kind::Array => self.visit_seq(visitor, item.len(), Paid::<false>::nothing()),
            Kind::Map => self.visit_map(visitor, item.len(), Paid::<false>::nothing(), &[]),
        };
        result.map_err(|e| e.placed(offset, depth))
    }

    /// An array's `len` elements handed to `visitor`, which must read them all. (Its errors
    /// are placed by the caller, at the array.)
    pub(super) fn visit_seq<const INLINE: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        paid: Paid<INLINE>,
    ) -> Result<V::Value, DeError> {
        let around = self.open.enter(len);
        // The value handed back from inside the `Ok` arm: by way of `?` (its `ControlFlow`)
        // the value was copied once more on the way out.
        match visitor.visit_seq(Elements { de: self, paid }) {
            Ok(value) => {
                let left = self.open.innermost;
                if left > 0 {
                    // Dropped before the error is made: the value is built where the result
                    // goes, which an error made first would take, so the value was copied
                    // aside on every decode, to be dropped after the error was made.
                    drop(value);
                    return Err(de::Error::custom(format!(
                        "the array has {left} elements more than the type takes"
                    )));
                }
                self.open.leave(around);
                if len > 0 {
                    self.close();
                }
                Ok(value)
            }
            Err(e) => Err(e),
        }
    }

    /// [`visit_map`](Self::visit_map) for a struct read from a map, out of line: inlined,
    /// its code took the place of the array path's (hardpack's own form of a struct) in
    /// LLVM's inlining, and the array path's reads of small structs' fields went out of line.
    #[inline(never)]
    fn visit_struct_map<const INLINE: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        paid: Paid<INLINE>,
        fields: &'static [&'static str],
    ) -> Result<V::Value, DeError> {
        self.visit_map(visitor, len, paid, fields)
    }

    /// A map's `len` entries handed to `visitor`, which must read them all.
    pub(super) fn visit_map<const INLINE: bool, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        paid: Paid<INLINE>,
        fields: &'static [&'static str],
    ) -> Result<V::Value, DeError> {
        let around = self.open.enter(len.saturating_mul(2));
        let entries = Entries {
            de: self,
            keys: Paid::nothing(),
            values: paid,
            fields,
            expected_field: 0,
        };
        // As in `visit_seq`.
        match visitor.visit_map(entries) {
            Ok(value) => {
                let items_left = self.open.innermost;
                if items_left > 0 {
                    // As in `visit_seq`.
                    drop(value);
                    return Err(map_left_unread(items_left));
                }
                self.open.leave(around);
                if len > 0 {
                    self.close();
                }
                Ok(value)
            }
            Err(e) => Err(e),
        }
    }

    /// Where the value the type read ends, once it has read all of it.
    pub(super) fn value_end(&self) -> Result<usize, Error> {
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
    pub(super) fn trailing(input_len: usize, consumed: usize) -> Result<(), Error> {
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

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_float::<false, V>(visitor)
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_float::<true, V>(visitor)
    }
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
        self.visit_next_as_sequence::<false, V>(visitor, &[])
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
        self.visit_next_as_sequence::<true, V>(visitor, &[])
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence::<true, V>(visitor, &[])
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.visit_next_as_sequence::<true, V>(visitor, fields)
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
                // The entry's two items: the variant, then its content.
                let around = self.open.enter(2);
                let variant = visitor.visit_enum(VariantOf { de: &mut *self })?;
                if self.open.innermost != 0 {
                    // As in `visit_seq`.
                    drop(variant);
                    return Err(DeError::about_item(
                        "the type read an enum's variant and not its content".into(),
                        offset,
                        depth,
                    ));
                }
                self.open.leave(around);
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

/// The refusal of a map whose type read `items_left` of its items no further. Each entry is two
/// items, its key handed out first: an odd count is a value due.
#[cold]
pub(super) fn map_left_unread(items_left: usize) -> DeError {
    let message = if items_left % 2 == 1 {
        "the type read a map key and not its value".to_string()
    } else {
        format!(
            "the map has {} entries more than the type takes",
            items_left / 2
        )
    };
    de::Error::custom(message)
}
