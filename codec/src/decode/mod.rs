//! The decoder: wire layer + limits + a budgeted builder, one loop, no recursion. Each limit
//! is compared with its value in `Limits` in one place here.

mod budget;

use budget::Builder;

use crate::error::{Error, ErrorKind};
use crate::limits::{Limit, Limits};
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::leaf::ShortText;
use crate::value::Value;
use crate::wire::cursor::{Cursor, Incomplete};
use crate::wire::header::{Header, HeaderError};

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
        }
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

    /// Decodes exactly one value; bytes after it are an error.
    pub fn decode(&self, input: &[u8]) -> Result<Value, Error> {
        let (value, stats) = self.decode_with_stats(input)?;
        if stats.consumed < input.len() {
            return Err(Error::new(
                ErrorKind::TrailingBytes {
                    count: input.len().saturating_sub(stats.consumed),
                },
                stats.consumed,
                0,
            ));
        }
        Ok(value)
    }

    /// Decodes the value at the start of `input`; returns it and the bytes it took.
    pub fn decode_prefix(&self, input: &[u8]) -> Result<(Value, usize), Error> {
        self.decode_with_stats(input)
            .map(|(value, stats)| (value, stats.consumed))
    }

    /// Like [`decode_prefix`](Self::decode_prefix), with what the decode charged.
    pub fn decode_with_stats(&self, input: &[u8]) -> Result<(Value, DecodeStats), Error> {
        let mut run = Run {
            cur: Cursor::new(input),
            builder: Builder::new(self.limits.max_alloc_bytes),
            limits: &self.limits,
            invalid_utf8: self.invalid_utf8,
        };
        loop {
            let start = run.cur.position();
            let step = run.item();
            let finished = step.map_err(|kind| Error::new(kind, start, run.builder.depth()))?;
            // Every item is at least its marker byte, so the loop ends on any input.
            debug_assert!(
                run.cur.position() > start,
                "a decode step consumed no input"
            );
            if finished {
                let value = run.builder.take_finished().unwrap_or_else(|| {
                    crate::invariant::broken("a finished decode without its value");
                    Value::Nil
                });
                let stats = DecodeStats {
                    consumed: run.cur.position(),
                    charged_bytes: run.builder.charged(),
                };
                return Ok((value, stats));
            }
        }
    }
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

struct Run<'a, 'l> {
    cur: Cursor<'a>,
    builder: Builder,
    limits: &'l Limits,
    invalid_utf8: InvalidUtf8,
}

impl<'a> Run<'a, '_> {
    /// The input ended inside the current item, `missing` bytes short; every item the open
    /// containers still expect after it needs at least one more byte.
    fn unexpected_end(&self, missing: usize) -> ErrorKind {
        ErrorKind::UnexpectedEnd {
            needed: missing.saturating_add(self.builder.pending_after_current()),
        }
    }

    fn incomplete(&self, e: Incomplete) -> ErrorKind {
        self.unexpected_end(e.needed)
    }

    fn check(&self, limit: Limit, claimed: u32) -> Result<usize, ErrorKind> {
        // A u32 always fits usize on the 32- and 64-bit targets Rust supports with std.
        self.check_len(limit, usize::try_from(claimed).unwrap_or(usize::MAX))
    }

    /// The one place a length is compared with its limit.
    fn check_len(&self, limit: Limit, claimed: usize) -> Result<usize, ErrorKind> {
        let max = self.limits.get(limit);
        if claimed > max {
            return Err(ErrorKind::LimitExceeded {
                limit,
                max,
                claimed,
            });
        }
        Ok(claimed)
    }

    fn body(&mut self, len: usize) -> Result<&'a [u8], ErrorKind> {
        self.cur.take(len).map_err(|e| self.incomplete(e))
    }

    /// Reads one item (a scalar with its body, or a container header) and hands it to the
    /// builder. True when it finished the document.
    fn item(&mut self) -> Result<bool, ErrorKind> {
        let header = match Header::read(&mut self.cur) {
            Ok(h) => h,
            Err(HeaderError::Incomplete(e)) => return Err(self.incomplete(e)),
            Err(HeaderError::ReservedMarker) => return Err(ErrorKind::ReservedMarker),
        };
        // Each arm hands its value to the builder itself, so that it is built in place.
        let b = &mut self.builder;
        match header {
            Header::Nil => Ok(b.push_value(Value::Nil)),
            Header::Bool(v) => Ok(b.push_value(Value::Bool(v))),
            Header::Uint(n) => Ok(b.push_value(Value::Integer(n.into()))),
            Header::Int(n) => Ok(b.push_value(Value::Integer(n.into()))),
            Header::F32(x) => Ok(b.push_value(Value::F32(x))),
            Header::F64(x) => Ok(b.push_value(Value::F64(x))),
            Header::Str(len) => {
                let len = self.check(Limit::StrLen, len)?;
                let bytes = self.body(len)?;
                if let Some(short) = ShortText::new(bytes) {
                    return Ok(self.builder.push_short_str(short));
                }
                // Longer than inline text, or not UTF-8.
                if let Ok(text) = core::str::from_utf8(bytes) {
                    let text = self.builder.owned_str(text)?;
                    return Ok(self.builder.push_value(Value::Str(text)));
                }
                self.invalid_utf8(bytes)
            }
            Header::Bin(len) => {
                let len = self.check(Limit::BinLen, len)?;
                let bytes = self.body(len)?;
                let bin = self.builder.owned_bytes(bytes)?;
                Ok(self.builder.push_value(Value::Bin(bin)))
            }
            Header::Ext { ext_type, len } => {
                let len = self.check(Limit::ExtLen, len)?;
                let payload = self.body(len)?;
                if ext_type == TIMESTAMP_EXT_TYPE {
                    let ts = Timestamp::from_ext_payload(payload)
                        .map_err(ErrorKind::InvalidTimestamp)?;
                    Ok(self.builder.push_value(Value::Timestamp(ts)))
                } else {
                    let ext = self.builder.owned_ext(ext_type, payload)?;
                    Ok(self.builder.push_value(Value::Ext(ext)))
                }
            }
            Header::Array(len) => {
                let len = self.check(Limit::ArrayLen, len)?;
                self.check_room(len)?;
                self.check_depth()?;
                self.builder.open(false, len)
            }
            Header::Map(len) => {
                let len = self.check(Limit::MapLen, len)?;
                self.check_room(len.saturating_mul(2))?;
                self.check_depth()?;
                self.builder.open(true, len)
            }
        }
    }

    /// The one place depth is compared with `max_depth`: a container opening here would be
    /// at one more than the containers already open.
    fn check_depth(&self) -> Result<(), ErrorKind> {
        self.check_len(Limit::Depth, self.builder.depth().saturating_add(1))
            .map(drop)
    }

    /// Refuses a container whose children could not fit in the input left: each needs a byte.
    fn check_room(&self, children: usize) -> Result<(), ErrorKind> {
        let needs = children.saturating_add(self.builder.pending_after_current());
        let left = self.cur.remaining();
        if needs > left {
            return Err(ErrorKind::UnexpectedEnd {
                needed: needs.saturating_sub(left),
            });
        }
        Ok(())
    }

    /// Handles a str whose bytes are not UTF-8, by the decoder's policy.
    #[cold]
    fn invalid_utf8(&mut self, bytes: &[u8]) -> Result<bool, ErrorKind> {
        match self.invalid_utf8 {
            InvalidUtf8::Reject => Err(ErrorKind::InvalidUtf8 {
                valid_up_to: core::str::from_utf8(bytes)
                    .err()
                    .map_or(0, |e| e.valid_up_to()),
            }),
            InvalidUtf8::Replace => {
                // Each invalid byte becomes at most three bytes of U+FFFD: a scratch string of
                // that size, charged and reserved exactly, so it never grows. (This is what
                // `String::from_utf8_lossy` does, without its growth past the charge.)
                let mut replaced = self.builder.charged_string(bytes.len().saturating_mul(3))?;
                for chunk in bytes.utf8_chunks() {
                    replaced.push_str(chunk.valid());
                    if !chunk.invalid().is_empty() {
                        replaced.push(char::REPLACEMENT_CHARACTER);
                    }
                }
                // The replacement can make the str longer than its claim: the limit is on
                // what the value holds.
                self.check_len(Limit::StrLen, replaced.len())?;
                let text = self.builder.owned_str(&replaced)?;
                Ok(self.builder.push_value(Value::Str(text)))
            }
        }
    }
}
