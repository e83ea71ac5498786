//! Decoding values as their bytes arrive: [`StreamDecoder`] is fed bytes and hands out each
//! value once all of its bytes are there, holding no more than `max_buffer_bytes` for a value
//! that is still incomplete, refusing a value as soon as its headers show it could not fit,
//! and examining each byte a bounded number of times however the input is split.
//!
//! How: a value that arrived whole is decoded straight from the buffer. A value cut short is
//! framed by the validator, resumable: it reads each item once, when the item
//! has arrived whole, with every check the decoder makes (limits, room, depth, UTF-8, the
//! budget), and waits, without looking again, until the bytes the item lacks can have
//! arrived. When the framer finds the value's end, the decoder decodes exactly those bytes.
//! A value therefore costs one validation and one decode, whether it came in one piece or
//! one byte at a time.
//!
//! Around it: [`Decoder::read_values`] iterates the values of an `io::Read`,
//! [`Decoder::read_value`] reads exactly one value from a `BufRead` and leaves the rest
//! (feature `std`); `Codec` and `TypedCodec` (feature `tokio`) serve `tokio_util`'s
//! `FramedRead`/`FramedWrite` through the same limits.

use crate::prelude::*;

use crate::decode::{Decoder, Framed, Framer};
use crate::error::{Error, ErrorKind};
use crate::value::Value;

#[cfg(feature = "std")]
mod io;
#[cfg(feature = "tokio")]
mod tokio;

#[cfg(feature = "std")]
pub use io::ReadValues;
#[cfg(feature = "tokio")]
pub use tokio::Codec;
#[cfg(all(feature = "tokio", feature = "serde"))]
pub use tokio::TypedCodec;

/// What a stream holds beyond the longest str, bin or ext the limits allow, by default: the
/// value's headers and its other items, and a read's worth of the bytes after it.
pub const BUFFER_MARGIN: usize = 64 << 10;

impl Decoder {
    /// The `max_buffer_bytes` a [`StreamDecoder`] of this decoder has unless told otherwise:
    /// the longest str, bin or ext the limits allow, plus [`BUFFER_MARGIN`]. A value bigger
    /// than that (a long array of long strs) must be allowed explicitly with
    /// [`StreamDecoder::with_max_buffer_bytes`].
    pub fn default_max_buffer_bytes(&self) -> usize {
        let limits = self.limits();
        limits
            .max_str_len
            .max(limits.max_bin_len)
            .max(limits.max_ext_len)
            .saturating_add(BUFFER_MARGIN)
    }
}

/// A resumable decoder for a stream of back-to-back values (MessagePack has no framing):
/// [`feed`](Self::feed) it bytes as they arrive and take values with [`next`](Self::next),
/// which answers `Ok(None)` while the next value is incomplete, never confusing incomplete
/// with invalid. At the end of the input call [`finish`](Self::finish): a value cut short is
/// then an [`ErrorKind::UnexpectedEnd`].
///
/// The values, and the first error with its offset (counted from the stream's first byte),
/// are the ones [`Decoder::decode_prefix`] gives decoding the concatenation of everything
/// fed, value after value, as long as every value fits in `max_buffer_bytes`. A value that
/// does not is refused with [`ErrorKind::BufferLimit`] as soon as a header or the bytes that
/// arrived show it, before its body is held. Each byte is examined a bounded number of times:
/// one-byte feeds of a document cost O(its length) in all, not O(length²).
///
/// After an error the decoder is failed for good: MessagePack has no marker to resynchronise
/// on, so the bytes after a bad item cannot be told apart. Every later call returns the same
/// error; the values returned before it are the caller's.
///
/// ```
/// use hardpack::{StreamDecoder, Value};
///
/// let mut stream = StreamDecoder::new(hardpack::Decoder::default());
/// let bytes = [0x92, 0x01, 0xa2, b'h', b'i', 0xc3]; // [1, "hi"], then true
/// let mut values = Vec::new();
/// for byte in bytes {
///     stream.feed(&[byte]); // as if it came one byte per read
///     while let Some(value) = stream.next()? {
///         values.push(value);
///     }
/// }
/// stream.finish()?;
/// assert_eq!(values, [Value::from_iter([Value::from(1u8), Value::from("hi")]), Value::Bool(true)]);
/// # Ok::<(), hardpack::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamDecoder {
    decoder: Decoder,
    max_buffer_bytes: usize,
    /// Bytes fed and not yet returned as values start at `start`.
    buf: Vec<u8>,
    start: usize,
    /// Stream offset of `buf[0]`.
    base: usize,
    /// The framer of the value at `start`, once it was found incomplete.
    framing: Option<Framing>,
    failed: Option<Error>,
    finished: bool,
    peak_held: usize,
}

/// A value being framed, for a decode of one kind.
struct Framing {
    framer: Framer,
    typed: bool,
}

impl core::fmt::Debug for Framing {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Framing")
            .field("typed", &self.typed)
            .finish_non_exhaustive()
    }
}

impl StreamDecoder {
    /// A stream decoder with `decoder`'s limits and options, holding at most
    /// [`Decoder::default_max_buffer_bytes`] for a value.
    pub fn new(decoder: Decoder) -> Self {
        let max_buffer_bytes = decoder.default_max_buffer_bytes();
        StreamDecoder {
            decoder,
            max_buffer_bytes,
            buf: Vec::new(),
            start: 0,
            base: 0,
            framing: None,
            failed: None,
            finished: false,
            peak_held: 0,
        }
    }

    /// The same decoder holding at most `max` bytes for a value that has not arrived whole.
    #[must_use]
    pub fn with_max_buffer_bytes(mut self, max: usize) -> Self {
        self.max_buffer_bytes = max;
        self
    }

    /// The most bytes it holds for a value that has not arrived whole.
    pub fn max_buffer_bytes(&self) -> usize {
        self.max_buffer_bytes
    }

    /// The decoder whose limits and options it uses.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Appends bytes that arrived. They are only read by [`next`](Self::next). If the
    /// allocator refuses the room for them, the stream fails with
    /// [`ErrorKind::OutOfMemory`] (the next call to `next` returns it).
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.failed.is_some() || self.finished {
            return;
        }
        // Drop what was returned once it is at least half the buffer: each byte is moved a
        // bounded number of times however the feeds and values interleave.
        if self.start > 0 && self.start >= self.buf.len().saturating_sub(self.start) {
            self.buf.drain(..self.start);
            self.base = self.base.saturating_add(self.start);
            self.start = 0;
        }
        if self.buf.try_reserve(bytes.len()).is_err() {
            // The allocator refused to hold what was fed: an error, not an abort.
            let at = self.offset().saturating_add(self.held().len());
            let kind = ErrorKind::OutOfMemory { bytes: bytes.len() };
            self.fail(Error::new(kind, at, 0));
            return;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The input ended: a value still incomplete is an error from the next call to
    /// [`next`](Self::next) on (and from this one, once the complete values are taken).
    pub fn finish(&mut self) -> Result<(), Error> {
        self.finished = true;
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.held().is_empty() {
            return Ok(());
        }
        // Bytes are held: either complete values not yet taken, or a value cut short.
        match self.decoder.decode_prefix(self.held()) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.fail(e.shifted(self.offset()))),
        }
    }

    /// The next value, `Ok(None)` if its bytes have not all arrived (or nothing is held).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Value>, Error> {
        let decoder = self.decoder.clone();
        self.next_with(false, |bytes| decoder.decode_prefix(bytes))
    }

    /// Bytes of the stream taken by the values returned so far.
    pub fn consumed(&self) -> usize {
        self.offset()
    }

    /// Bytes held now (fed and not yet returned as values).
    pub fn held_bytes(&self) -> usize {
        self.held().len()
    }

    /// The most bytes held at once for a value that had not arrived whole.
    pub fn peak_buffered_bytes(&self) -> usize {
        self.peak_held
    }

    fn held(&self) -> &[u8] {
        self.buf.get(self.start..).unwrap_or_default()
    }

    /// Stream offset of the first held byte.
    fn offset(&self) -> usize {
        self.base.saturating_add(self.start)
    }

    fn fail(&mut self, e: Error) -> Error {
        self.failed = Some(e.clone());
        self.framing = None;
        self.base = self.offset();
        self.buf = Vec::new();
        self.start = 0;
        e
    }

    /// The next value, decoded by `decode` (a prefix decoder: the value and its length) once
    /// its bytes have arrived; `typed` says which budget frames it (the owned decoder's, or
    /// none: a typed decode charges what its own types need).
    fn next_with<T>(
        &mut self,
        typed: bool,
        decode: impl Fn(&[u8]) -> Result<(T, usize), Error>,
    ) -> Result<Option<T>, Error> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let held_len = self.held().len();
        if held_len == 0 {
            return Ok(None);
        }
        if self.framing.as_ref().is_some_and(|f| f.typed != typed) {
            // Framed for the other kind of decode so far: frame again from the value's start.
            self.framing = None;
        }
        if self.framing.is_none() {
            // Not known to be incomplete: decode it straight from the buffer if it is whole.
            match decode(self.held()) {
                Ok((value, len)) => return self.taken(value, len).map(Some),
                Err(e) if !e.is_incomplete() || self.finished => {
                    return Err(self.fail(e.shifted(self.offset())));
                }
                Err(_) => {
                    let mut limits = self.decoder.limits().clone();
                    if typed {
                        limits.max_alloc_bytes = usize::MAX;
                    }
                    let framer = Framer::new(&limits, self.decoder.invalid_utf8());
                    self.framing = Some(Framing { framer, typed });
                }
            }
        }
        let Some(framing) = self.framing.as_mut() else {
            return Ok(None);
        };
        let held = self.buf.get(self.start..).unwrap_or_default();
        match framing.framer.frame(held) {
            Ok(Framed::Complete(len)) => {
                self.framing = None;
                let whole = held.get(..len).unwrap_or_default();
                match decode(whole) {
                    Ok((value, len)) => self.taken(value, len).map(Some),
                    Err(e) => Err(self.fail(e.shifted(self.offset()))),
                }
            }
            Ok(Framed::Incomplete {
                offset,
                depth,
                needed,
            }) => {
                let must_hold = held_len.saturating_add(needed);
                if must_hold > self.max_buffer_bytes {
                    let kind = ErrorKind::BufferLimit {
                        max: self.max_buffer_bytes,
                        needed: must_hold,
                    };
                    let e = Error::new(kind, offset, depth).shifted(self.offset());
                    return Err(self.fail(e));
                }
                if self.finished {
                    // The input ended inside the value: the decoder's own verdict on it.
                    let e = match decode(held) {
                        Err(e) => e,
                        Ok(_) => Error::new(ErrorKind::UnexpectedEnd { needed }, offset, depth),
                    };
                    return Err(self.fail(e.shifted(self.offset())));
                }
                self.peak_held = self.peak_held.max(held_len);
                Ok(None)
            }
            Err(_) => {
                // The framer's verdict is the lenient one; the decoder's (strict mode's
                // included) is the one to give, and it is never later in the input.
                let e = match decode(held) {
                    Err(e) => e,
                    Ok(_) => {
                        crate::invariant::broken("the framer refused what the decoder accepts");
                        Error::new(ErrorKind::UnexpectedEnd { needed: 1 }, 0, 0)
                    }
                };
                Err(self.fail(e.shifted(self.offset())))
            }
        }
    }

    /// A value of `len` bytes was decoded from the front of what is held.
    fn taken<T>(&mut self, value: T, len: usize) -> Result<T, Error> {
        if len > self.max_buffer_bytes {
            // Arrived in one piece, but split otherwise it would have been refused: refused
            // whatever the split, so the verdict never depends on how the bytes came.
            let kind = ErrorKind::BufferLimit {
                max: self.max_buffer_bytes,
                needed: len,
            };
            return Err(self.fail(Error::new(kind, self.offset(), 0)));
        }
        self.start = self.start.saturating_add(len);
        if self.start == self.buf.len() {
            self.base = self.base.saturating_add(self.start);
            self.buf.clear();
            self.start = 0;
        }
        Ok(value)
    }
}

#[cfg(feature = "serde")]
impl StreamDecoder {
    /// The next value as a `T` (with [`Decoder::from_slice`]'s limits, budget and errors),
    /// `Ok(None)` if its bytes have not all arrived. While a value is incomplete the stream
    /// frames it with every limit but the budget, which the typed decode applies to what `T`
    /// allocates.
    pub fn next_as<T: serde::de::DeserializeOwned>(&mut self) -> Result<Option<T>, Error> {
        let decoder = self.decoder.clone();
        self.next_with(true, |bytes| decoder.from_slice_prefix::<T>(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the buffer stands: bytes returned still in it, bytes in it, stream offset of
    /// its first byte.
    fn layout(stream: &StreamDecoder) -> (usize, usize, usize) {
        (stream.start, stream.buf.len(), stream.base)
    }

    #[test]
    fn returned_bytes_are_dropped_once_they_are_half_the_buffer() {
        let mut stream = StreamDecoder::new(Decoder::default());
        stream.feed(&[1, 2, 3, 4]);
        assert_eq!(stream.next(), Ok(Some(Value::from(1u8))));
        // One byte returned of four: kept, not moved.
        stream.feed(&[5]);
        assert_eq!(layout(&stream), (1, 5, 0));
        assert_eq!(stream.next(), Ok(Some(Value::from(2u8))));
        assert_eq!(stream.next(), Ok(Some(Value::from(3u8))));
        // Three returned, two not: dropped before the next bytes go in.
        stream.feed(&[6]);
        assert_eq!(layout(&stream), (0, 3, 3));
        assert_eq!(stream.consumed(), 3);
        // All returned: the buffer is emptied at once.
        for expected in 4u8..=6 {
            assert_eq!(stream.next(), Ok(Some(Value::from(expected))));
        }
        assert_eq!(layout(&stream), (0, 0, 6));
    }

    #[test]
    fn a_value_always_left_waiting_keeps_the_buffer_within_twice_what_is_held() {
        // Two-byte values (`0xcc, x`) fed so that every feed ends one byte into the next
        // value: the buffer never empties on its own, so only dropping what was returned
        // keeps it small.
        let mut stream = StreamDecoder::new(Decoder::default());
        stream.feed(&[0xcc]);
        for i in 0..10_000u32 {
            let x = u8::try_from(128 + i % 128).unwrap();
            stream.feed(&[x, 0xcc]);
            assert_eq!(stream.next(), Ok(Some(Value::from(x))));
            assert_eq!(stream.next(), Ok(None));
            assert!(stream.buf.len() <= 3, "{i}: {:?}", layout(&stream));
        }
        assert_eq!(stream.consumed(), 20_000);
    }
}
