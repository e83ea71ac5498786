//! Validation without building anything: the owned decoder's verdict (the same error kind,
//! offset and depth, a `max_alloc_bytes` refusal included) from the same reader, with a sink
//! that only counts. What a decode would charge is worked out from the same charge sizes,
//! never allocated.
//!
//! Its own state is one count per open container: in place (no heap allocation at all) when
//! `max_depth` is at most [`INLINE_DEPTH`], else in one vector reserved once, for at most
//! `min(max_depth, input length)` levels.

use alloc::vec::Vec;

use super::budget::{bin_charge, container_charge, ext_charge, str_charge, Budget};
use super::nesting::Nesting;
use super::read::{check_len, Reader, Sink};
use super::{DecodeStats, Decoder, InvalidUtf8};
use crate::error::{Error, ErrorKind};
use crate::invariant;
use crate::limits::{Limit, Limits};
use crate::value::assemble::stack_growth;
use crate::value::leaf::ShortText;
use crate::value::Value;
use crate::wire::cursor::Cursor;

/// Nesting up to this depth is validated with no heap allocation.
pub const INLINE_DEPTH: usize = 128;

struct Validator<C> {
    /// Room for the open containers' counts: for `max_depth` levels (at most one per input
    /// byte) in place or in one vector, or grown as needed ([`CountRoom`]).
    nesting: Nesting<C>,
    budget: Budget,
    /// The capacity the owned decoder's stack of open containers would have now.
    builder_stack_capacity: usize,
}

/// Room for the counts: `levels` of them in `inline` when they fit, else in `heap`, reserved
/// once.
fn count_room<'c>(
    levels: usize,
    inline: &'c mut [usize; INLINE_DEPTH],
    heap: &'c mut Vec<usize>,
) -> Result<&'c mut [usize], Error> {
    if levels <= INLINE_DEPTH {
        return Ok(inline);
    }
    heap.try_reserve_exact(levels).map_err(|_| {
        let bytes = levels.saturating_mul(core::mem::size_of::<usize>());
        Error::new(ErrorKind::OutOfMemory { bytes }, 0, 0)
    })?;
    heap.resize(levels, 0);
    Ok(heap)
}

/// The length of `bytes` with each invalid UTF-8 sequence replaced by U+FFFD.
#[cold]
fn replaced_len(bytes: &[u8]) -> usize {
    bytes.utf8_chunks().fold(0usize, |len, chunk| {
        let replacement = if chunk.invalid().is_empty() { 0 } else { 3 };
        len.saturating_add(chunk.valid().len())
            .saturating_add(replacement)
    })
}

/// Storage for a validator's counts.
trait CountRoom: AsRef<[usize]> + AsMut<[usize]> {
    /// Makes room for one more level.
    fn grow(&mut self) -> Result<(), ErrorKind>;
}

impl CountRoom for &mut [usize] {
    fn grow(&mut self) -> Result<(), ErrorKind> {
        // Sized for max_depth (or the input's length) up front: the reader checked the depth.
        invariant::broken("more open containers than max_depth allows");
        Ok(())
    }
}

impl CountRoom for Vec<usize> {
    /// Doubles, for a validator that does not know its input's length up front (the
    /// stream's): at most twice as many levels as are open, each at least one input byte.
    fn grow(&mut self) -> Result<(), ErrorKind> {
        let extra = self.len().max(8);
        let bytes = extra.saturating_mul(core::mem::size_of::<usize>());
        self.try_reserve_exact(extra)
            .map_err(|_| ErrorKind::OutOfMemory { bytes })?;
        self.resize(self.len().saturating_add(extra), 0);
        Ok(())
    }
}

impl<C: CountRoom> Validator<C> {
    #[inline(always)]
    fn item_done(&mut self) -> bool {
        self.nesting.item_done(|| {})
    }
}

impl<'a, C: CountRoom> Sink<'a> for Validator<C> {
    const COUNTS_ONLY: bool = true;

    #[inline(always)]
    fn leaf(&mut self, text_len: usize) -> Result<bool, ErrorKind> {
        let charge = str_charge(text_len);
        // Most leaves are charged nothing: a branch that predicts well, not an addition and
        // a comparison with the budget for each.
        if charge != 0 {
            self.budget.charge(charge)?;
        }
        Ok(self.item_done())
    }

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
        // A scalar owns no heap: skip its drop glue (a match on the variant for nothing).
        core::mem::forget(value);
        self.item_done()
    }

    #[inline(always)]
    fn short_str(&mut self, _text: ShortText<'a>) -> bool {
        self.item_done()
    }

    #[inline(always)]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        self.budget.charge(str_charge(text.len()))?;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn invalid_str(&mut self, bytes: &'a [u8], limits: &Limits) -> Result<bool, ErrorKind> {
        // What the owned decoder does under InvalidUtf8::Replace, counted: a scratch string of
        // three bytes per input byte, then the replaced text held to max_str_len and kept.
        self.budget.charge(bytes.len().saturating_mul(3))?;
        let replaced = replaced_len(bytes);
        check_len(limits, Limit::StrLen, replaced)?;
        self.budget.charge(str_charge(replaced))?;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        self.budget.charge(bin_charge(bytes.len()))?;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn ext(&mut self, _ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        self.budget.charge(ext_charge(data.len()))?;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        if len == 0 {
            return Ok(self.item_done());
        }
        self.budget.charge(container_charge(is_map, len))?;
        if let Some((entries, bytes)) =
            stack_growth(self.nesting.depth(), self.builder_stack_capacity)
        {
            self.budget.charge(bytes)?;
            self.builder_stack_capacity = self.builder_stack_capacity.saturating_add(entries);
        }
        if !self.nesting.has_room() {
            self.nesting.counts_mut().grow()?;
        }
        self.nesting
            .push(if is_map { len.saturating_mul(2) } else { len });
        Ok(false)
    }

    #[inline(always)]
    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        self.budget.charge(bytes)
    }
}

impl Decoder {
    /// What [`decode_with_stats`](Self::decode_with_stats) would answer for the value at the
    /// start of `input` (the same error, offset and depth; the same bytes consumed and charged),
    /// without building the value. No heap allocation when `max_depth` is at most
    /// [`INLINE_DEPTH`]; one above it.
    ///
    /// The one verdict it cannot give is [`ErrorKind::OutOfMemory`]: it asks the allocator
    /// for nothing, so where a decode's request would be refused it answers `Ok`.
    pub fn skip(&self, input: &[u8]) -> Result<DecodeStats, Error> {
        let mut inline = [0; INLINE_DEPTH];
        let mut heap = Vec::new();
        // Each level needs at least its header byte: no more levels than input bytes.
        let levels = if self.limits.max_depth <= INLINE_DEPTH {
            self.limits.max_depth
        } else {
            self.limits.max_depth.min(input.len())
        };
        let mut validator = Validator {
            nesting: Nesting::new(count_room(levels, &mut inline, &mut heap)?),
            budget: Budget::new(self.limits.max_alloc_bytes),
            builder_stack_capacity: 0,
        };
        let consumed = if self.strict {
            self.read_strict(input, self.invalid_utf8, &mut validator)?
        } else {
            // Its own copy: a validator whose address is never passed to an out-of-line call
            // lives in registers (passed to read_strict, its every count would go through
            // memory).
            let mut lenient = validator;
            let consumed =
                Reader::new(input, &self.limits, self.invalid_utf8).value(&mut lenient)?;
            validator = lenient;
            consumed
        };
        Ok(DecodeStats {
            consumed,
            charged_bytes: validator.budget.used(),
        })
    }

    /// What [`decode`](Self::decode) would answer for `input` (exactly one value; bytes after
    /// it are an error), without building the value: see [`skip`](Self::skip).
    pub fn validate(&self, input: &[u8]) -> Result<DecodeStats, Error> {
        let stats = self.skip(input)?;
        super::refuse_trailing(input, stats.consumed)?;
        Ok(stats)
    }
}

/// What [`decode`](crate::decode::decode) would answer for `input` under
/// `Limits::default()`, without building the value: [`Decoder::validate`] with the default
/// decoder. Use it as a guard in front of a decoder that recurses or trusts lengths:
///
/// ```
/// use hardpack::{validate, Limit};
///
/// // 100,000 nested arrays: rmp-serde would recurse once per level; this refuses at 129.
/// let mut bomb = vec![0x91u8; 100_000];
/// bomb.push(0xc0);
/// let err = validate(&bomb).unwrap_err();
/// assert_eq!(err.limit(), Some(Limit::Depth));
/// assert_eq!((err.offset(), err.depth()), (128, 128));
///
/// let stats = validate(&[0x92, 0x01, 0xa1, b'a'])?;
/// assert_eq!(stats.consumed, 4);
/// # Ok::<(), hardpack::Error>(())
/// ```
pub fn validate(input: &[u8]) -> Result<DecodeStats, Error> {
    Decoder::default().validate(input)
}

/// What [`decode_prefix`](crate::decode::decode_prefix) would answer for the value at the
/// start of `input` under `Limits::default()`, without building it: [`Decoder::skip`] with
/// the default decoder.
pub fn skip(input: &[u8]) -> Result<DecodeStats, Error> {
    Decoder::default().skip(input)
}

/// How far framing the value at the start of a buffer got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framed {
    /// The value is complete: its length.
    Complete(usize),
    /// The value needs more bytes: `needed` more at least (the reader's lower bound), for the
    /// item at `offset` (relative to the value's start) at `depth`.
    Incomplete {
        offset: usize,
        depth: usize,
        needed: usize,
    },
}

/// The validator, resumable: finds where the value at the start of a buffer that grows
/// between calls ends, reading each item once it has arrived whole and never again, with the
/// verdict [`Decoder::skip`] gives on the same bytes. An item whose bytes have not all arrived
/// is left for the next call, which starts at that item; a call before the bytes it lacked
/// can have arrived returns at once. So feeding a value one byte at a time costs O(its length)
/// in all.
pub(crate) struct Framer {
    validator: Validator<Vec<usize>>,
    limits: Limits,
    invalid_utf8: InvalidUtf8,
    /// Where the next item starts.
    resume_at: usize,
    /// The buffer length before which the item at `resume_at` cannot be complete.
    wait_until: usize,
    /// The last answer while waiting, and the buffer length it was given for.
    waiting: Framed,
    waited_at: usize,
}

impl Framer {
    /// A framer for a value read under `limits` (lenient: strict mode's checks, which need
    /// the whole value, are the final decode's).
    pub(crate) fn new(limits: &Limits, invalid_utf8: InvalidUtf8) -> Self {
        Framer {
            validator: Validator {
                nesting: Nesting::new(Vec::new()),
                budget: Budget::new(limits.max_alloc_bytes),
                builder_stack_capacity: 0,
            },
            limits: limits.clone(),
            invalid_utf8,
            resume_at: 0,
            wait_until: 0,
            waiting: Framed::Incomplete {
                offset: 0,
                depth: 0,
                needed: 1,
            },
            waited_at: 0,
        }
    }

    /// Frames the value at the start of `buf`, which holds what an earlier call saw and
    /// maybe more. An error is the one [`Decoder::skip`] gives for `buf`, with offsets
    /// relative to its start.
    pub(crate) fn frame(&mut self, buf: &[u8]) -> Result<Framed, Error> {
        if buf.len() < self.wait_until {
            // What the value needs counts down as bytes arrive.
            if let Framed::Incomplete {
                offset,
                depth,
                needed,
            } = self.waiting
            {
                let needs_len = self.waited_at.saturating_add(needed);
                return Ok(Framed::Incomplete {
                    offset,
                    depth,
                    needed: needs_len.saturating_sub(buf.len()),
                });
            }
            return Ok(self.waiting);
        }
        let mut reader = Reader::resume(
            Cursor::at(buf, self.resume_at),
            &self.limits,
            self.invalid_utf8,
        );
        loop {
            let at = reader.cursor().position();
            match reader.step(&mut self.validator, None) {
                Ok(true) => return Ok(Framed::Complete(reader.cursor().position())),
                Ok(false) => {}
                Err(e) => {
                    let Some(needed) = e.needed() else {
                        return Err(e);
                    };
                    // An incomplete item leaves the validator as it was: every check that can
                    // fail for want of bytes runs before the sink is told of the item.
                    self.resume_at = at;
                    // The item itself lacks `needed` less what the containers expect after
                    // it (a byte each), and at least one byte.
                    let item_lacks = needed
                        .saturating_sub(self.validator.pending_after_current())
                        .max(1);
                    self.wait_until = buf.len().saturating_add(item_lacks);
                    self.waited_at = buf.len();
                    self.waiting = Framed::Incomplete {
                        offset: at,
                        depth: e.depth(),
                        needed,
                    };
                    return Ok(self.waiting);
                }
            }
        }
    }
}
