//! The public pull reader: the wire as a sequence of checked tokens, borrowed from the input.
//! It is the same reader as every other surface (every check in [`read`](super::read)), with
//! a sink that hands each item out instead of building anything.

use crate::prelude::*;

use super::budget::Budget;
use super::nesting::Nesting;
use super::read::{Reader, Sink};
use super::InvalidUtf8;
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::value::token::{narrow, Token};
use crate::value::Value;

/// The open containers' counts, in a vector grown by doubling when a container opens past
/// its length: at most twice `max_depth` entries, every growth charged to the budget first.
pub(crate) fn grow_nesting(
    nesting: &mut Nesting<Vec<usize>>,
    budget: &mut Budget,
) -> Result<(), ErrorKind> {
    if nesting.has_room() {
        return Ok(());
    }
    let counts = nesting.counts_mut();
    let extra = counts.len().max(8);
    let bytes = extra.saturating_mul(core::mem::size_of::<usize>());
    budget.charge(bytes)?;
    counts
        .try_reserve_exact(extra)
        .map_err(|_| ErrorKind::OutOfMemory { bytes })?;
    counts.resize(counts.len().saturating_add(extra), 0);
    Ok(())
}

/// Reads MessagePack one [`Token`] at a time, each with the byte offset it starts at, with
/// every check the decoder makes that needs no tree: each length against its limit and
/// against the input left (with what the open containers still expect), the depth, the
/// reserved marker 0xc1, timestamps, strict UTF-8.
///
/// Its own state is one count per open container, in a vector bounded by `max_depth` and
/// charged to `max_alloc_bytes` (the only heap it uses: payloads are borrowed). Values may
/// follow each other back to back: the reader goes on to the next after one ends, and ends
/// (`None`) at the end of the input between values. After an error it yields nothing more.
///
/// ```
/// use hardpack::{Limits, decode::Token, decode::TokenReader};
///
/// let input = [0x92, 0xa2, b'h', b'i', 0xc4, 0x01, 0xff];
/// let tokens: Vec<(usize, Token)> = TokenReader::new(&input, &Limits::default())
///     .collect::<Result<_, _>>()?;
/// assert_eq!(
///     tokens,
///     [(0, Token::Array(2)), (1, Token::Str("hi")), (4, Token::Bin(&[0xff]))]
/// );
///
/// // A 100,000-deep nesting is refused at max_depth, having used a few hundred bytes.
/// let bomb = vec![0x91; 100_000];
/// let err = TokenReader::new(&bomb, &Limits::default()).find_map(Result::err).unwrap();
/// assert_eq!((err.offset(), err.depth()), (128, 128));
/// # Ok::<(), hardpack::Error>(())
/// ```
pub struct TokenReader<'a> {
    reader: Reader<'a>,
    nesting: Nesting<Vec<usize>>,
    budget: Budget,
    failed: bool,
}

impl<'a> TokenReader<'a> {
    /// A reader at the start of `input`, under `limits`.
    pub fn new(input: &'a [u8], limits: &Limits) -> Self {
        TokenReader {
            reader: Reader::new(input, limits, InvalidUtf8::Reject),
            nesting: Nesting::new(Vec::new()),
            budget: Budget::new(limits.max_alloc_bytes),
            failed: false,
        }
    }

    /// Bytes read so far: after the last token, the end of what it took.
    #[inline]
    pub fn position(&self) -> usize {
        self.reader.cursor().position()
    }

    /// Containers open around the next token.
    #[inline]
    pub fn depth(&self) -> usize {
        self.nesting.depth()
    }

    /// The next token and its offset; `Ok(None)` at the end of the input between values.
    #[inline]
    pub fn next_token(&mut self) -> Result<Option<(usize, Token<'a>)>, Error> {
        if self.failed || (self.reader.cursor().remaining() == 0 && self.nesting.depth() == 0) {
            return Ok(None);
        }
        let offset = self.reader.cursor().position();
        let mut sink = PullSink {
            nesting: &mut self.nesting,
            budget: &mut self.budget,
            token: None,
        };
        match self.reader.step(&mut sink, None) {
            Ok(_) => {
                let token = sink.token.unwrap_or_else(|| {
                    crate::invariant::broken("a read step that handed out no token");
                    Token::Nil
                });
                Ok(Some((offset, token)))
            }
            Err(e) => {
                // The step may have read part of the item: position() stays at its start,
                // the end of the last token handed out.
                self.reader.rewind(offset);
                self.failed = true;
                Err(e)
            }
        }
    }
}

impl<'a> Iterator for TokenReader<'a> {
    type Item = Result<(usize, Token<'a>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_token().transpose()
    }
}

impl core::iter::FusedIterator for TokenReader<'_> {}

/// Holds the one token a read step hands out.
struct PullSink<'r, 'a> {
    nesting: &'r mut Nesting<Vec<usize>>,
    budget: &'r mut Budget,
    token: Option<Token<'a>>,
}

impl PullSink<'_, '_> {
    #[inline(always)]
    fn item_done(&mut self) -> bool {
        self.nesting.item_done(|| {})
    }
}

impl<'a> Sink<'a> for PullSink<'_, 'a> {
    // Inlined, the token a method stores is read back from registers, not through memory
    // (out of line, each token would be stored and reloaded).
    const SHORT_TEXT: bool = false;

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
        self.token = Some(Token::from_scalar(&value));
        core::mem::forget(value);
        self.item_done()
    }

    #[inline(always)]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        self.token = Some(Token::Str(text));
        Ok(self.item_done())
    }

    #[inline(always)]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        self.token = Some(Token::Bin(bytes));
        Ok(self.item_done())
    }

    #[inline(always)]
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        self.token = Some(Token::Ext(ext_type, data));
        Ok(self.item_done())
    }

    #[inline(always)]
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        self.token = Some(if is_map {
            Token::Map(narrow(len))
        } else {
            Token::Array(narrow(len))
        });
        if len == 0 {
            return Ok(self.item_done());
        }
        grow_nesting(self.nesting, self.budget)?;
        self.nesting
            .push(if is_map { len.saturating_mul(2) } else { len });
        Ok(false)
    }

    #[inline(always)]
    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        self.budget.charge(bytes)
    }
}
