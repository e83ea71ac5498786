//! The borrowed decoder: the reader feeding a tape of [`TapeItem`]s (see [`ValueRef`]),
//! charging the tape and its own stack of open containers to the budget before each growth.

use crate::prelude::*;
use core::mem::size_of;

use super::budget::Budget;
use super::nesting::Nesting;
use super::read::Sink;
use super::tokens::grow_nesting;
use super::{refuse_trailing, DecodeStats, Decoder, InvalidUtf8};
use crate::error::{Error, ErrorKind};
use crate::value::borrowed::TapeItem;
use crate::value::leaf::ShortText;
use crate::value::token::{narrow, Token};
use crate::value::{Value, ValueRef};

/// Bytes the borrowed decode charges for each tape item.
pub(crate) const TAPE_ITEM_BYTES: usize = size_of::<TapeItem<'static>>();

/// Items reserved before the first is read.
const FIRST_ROOM: usize = 8;

struct TapeBuilder<'a> {
    tape: Vec<TapeItem<'a>>,
    nesting: Nesting<Vec<usize>>,
    /// The tape index of each open container, innermost last.
    open_at: Vec<usize>,
    budget: Budget,
    /// The most items the document can have: one per input byte.
    max_items: usize,
}

impl<'a> TapeBuilder<'a> {
    /// Room for `additional` more items. The tape grows to what is needed now or to twice
    /// its size, whichever is more, but never past one item per input byte; every growth is
    /// charged first.
    #[inline(always)]
    fn reserve(&mut self, additional: usize) -> Result<(), ErrorKind> {
        if self.tape.capacity().saturating_sub(self.tape.len()) >= additional {
            return Ok(());
        }
        self.grow(additional)
    }

    #[cold]
    fn grow(&mut self, additional: usize) -> Result<(), ErrorKind> {
        let needed = self.tape.len().saturating_add(additional);
        let doubled = self.tape.capacity().saturating_mul(2).min(self.max_items);
        let target = needed.max(doubled);
        let extra = target.saturating_sub(self.tape.len());
        let bytes = target
            .saturating_sub(self.tape.capacity())
            .saturating_mul(TAPE_ITEM_BYTES);
        self.budget.charge(bytes)?;
        self.tape
            .try_reserve_exact(extra)
            .map_err(|_| ErrorKind::OutOfMemory { bytes })
    }

    #[inline(always)]
    fn push(&mut self, item: TapeItem<'a>) -> Result<bool, ErrorKind> {
        // Reserved already (see `open`); this only checks.
        self.reserve(1)?;
        self.tape.push(item);
        Ok(self.item_done())
    }

    #[inline(always)]
    fn item_done(&mut self) -> bool {
        let tape = &mut self.tape;
        let open_at = &mut self.open_at;
        self.nesting.item_done(|| {
            let end = tape.len();
            match open_at.pop().and_then(|at| tape.get_mut(at)) {
                Some(item) => item.close(end),
                None => crate::invariant::broken("a container closed that was never opened"),
            }
        })
    }
}

impl<'a> Sink<'a> for TapeBuilder<'a> {
    #[inline(always)]
    fn depth(&self) -> usize {
        self.nesting.depth()
    }

    #[inline(always)]
    fn pending_after_current(&self) -> usize {
        self.nesting.pending_after_current()
    }

    #[inline(always)]
    fn scalar(&mut self, value: Value) -> bool {
        let item = TapeItem::from_token(Token::from_scalar(&value));
        core::mem::forget(value);
        // Its room was reserved when the container around it opened (or at the start, for
        // a scalar alone): see `open`.
        if self.tape.len() == self.tape.capacity() {
            crate::invariant::broken("a scalar without room on the tape");
        }
        self.tape.push(item);
        self.item_done()
    }

    #[inline(always)]
    fn short_str(&mut self, text: ShortText<'a>) -> bool {
        // Room reserved as for a scalar.
        if self.tape.len() == self.tape.capacity() {
            crate::invariant::broken("a str without room on the tape");
        }
        self.tape.push(TapeItem::Str(text.bytes()));
        self.item_done()
    }

    #[inline(always)]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        self.push(TapeItem::Str(text.as_bytes()))
    }

    #[inline(always)]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        self.push(TapeItem::Bin(bytes))
    }

    #[inline(always)]
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        self.push(TapeItem::Ext(ext_type, data))
    }

    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        let token = if is_map {
            Token::Map(narrow(len))
        } else {
            Token::Array(narrow(len))
        };
        let children = if is_map { len.saturating_mul(2) } else { len };
        // Room for this container, its children and every item the open containers still
        // expect after it, each at least one tape item: so every later scalar has its room
        // already. (The reader has checked that the input left holds a byte for each, so
        // this is at most one item per input byte.)
        self.reserve(
            children
                .saturating_add(1)
                .saturating_add(self.nesting.pending_after_current()),
        )?;
        if len == 0 {
            let mut item = TapeItem::from_token(token);
            item.close(self.tape.len().saturating_add(1));
            self.tape.push(item);
            return Ok(self.item_done());
        }
        grow_nesting(&mut self.nesting, &mut self.budget)?;
        let levels = self.nesting.counts_mut().len();
        if self.open_at.capacity() < levels {
            let extra = levels.saturating_sub(self.open_at.len());
            let bytes = levels
                .saturating_sub(self.open_at.capacity())
                .saturating_mul(size_of::<usize>());
            self.budget.charge(bytes)?;
            self.open_at
                .try_reserve_exact(extra)
                .map_err(|_| ErrorKind::OutOfMemory { bytes })?;
        }
        self.open_at.push(self.tape.len());
        self.tape.push(TapeItem::from_token(token));
        self.nesting.push(children);
        Ok(false)
    }

    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        self.budget.charge(bytes)
    }
}

impl Decoder {
    /// Decodes exactly one value, borrowing its str, bin and ext payloads from `input`; bytes
    /// after it are an error. The same checks and limits as [`decode`](Self::decode), the
    /// same errors at the same offsets, but for two differences: invalid UTF-8 is always
    /// rejected (a borrowed str cannot be repaired), and `max_alloc_bytes` is charged with
    /// what this decode allocates (24 bytes a value on its tape), not what the owned one
    /// would.
    pub fn decode_ref<'a>(&self, input: &'a [u8]) -> Result<ValueRef<'a>, Error> {
        let (value, stats) = self.decode_ref_with_stats(input)?;
        refuse_trailing(input, stats.consumed)?;
        Ok(value)
    }

    /// Like [`decode_ref`](Self::decode_ref) for the value at the start of `input`; returns
    /// it and the bytes it took.
    pub fn decode_ref_prefix<'a>(&self, input: &'a [u8]) -> Result<(ValueRef<'a>, usize), Error> {
        self.decode_ref_with_stats(input)
            .map(|(value, stats)| (value, stats.consumed))
    }

    /// Like [`decode_ref_prefix`](Self::decode_ref_prefix), with what the decode charged.
    pub fn decode_ref_with_stats<'a>(
        &self,
        input: &'a [u8],
    ) -> Result<(ValueRef<'a>, DecodeStats), Error> {
        let mut builder = TapeBuilder {
            tape: Vec::new(),
            nesting: Nesting::new(Vec::new()),
            open_at: Vec::new(),
            budget: Budget::new(self.limits.max_alloc_bytes),
            max_items: input.len(),
        };
        // The first item's room (every later item's is reserved by the container it is in),
        // and a little more, so that a small document is one allocation, not two; never more
        // items than input bytes.
        builder
            .reserve(FIRST_ROOM.min(input.len()).max(1))
            .map_err(|kind| Error::new(kind, 0, 0))?;
        let consumed = self.read(input, InvalidUtf8::Reject, &mut builder)?;
        let stats = DecodeStats {
            consumed,
            charged_bytes: builder.budget.used(),
        };
        Ok((ValueRef::from_tape(builder.tape), stats))
    }
}

/// Decodes exactly one value with `Limits::default()`, borrowing from `input`: see
/// [`Decoder::decode_ref`].
pub fn decode_ref(input: &[u8]) -> Result<ValueRef<'_>, Error> {
    Decoder::default().decode_ref(input)
}

/// Decodes the value at the start of `input` with `Limits::default()`, borrowing from it;
/// returns it and the bytes it took.
pub fn decode_ref_prefix(input: &[u8]) -> Result<(ValueRef<'_>, usize), Error> {
    Decoder::default().decode_ref_prefix(input)
}
