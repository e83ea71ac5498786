//! The one place every check on the input lives: reading one item (a scalar with its body, or
//! a container header), checking it against the limits, the bytes left and the nesting, and
//! handing it to a [`Sink`] (the owned builder, or the validator that builds nothing). A
//! surface adds what it owns (its allocations, charged to its budget) and no check of its own.

use crate::error::{Error, ErrorKind};
use crate::limits::{Limit, Limits};
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::leaf::ShortText;
use crate::value::Value;
use crate::wire::cursor::{Cursor, Incomplete};
use crate::wire::header::{leaf_item, plain_scalar_body, Header, HeaderError, LEAF_ITEM_MAX};

use super::strict::Strict;
use super::InvalidUtf8;

/// What a decoding surface does with each item. Every method that may end the document
/// answers `true` when it did (the top-level value is complete).
pub(crate) trait Sink<'a> {
    /// Whether short UTF-8 strs go to [`short_str`](Self::short_str) (for a sink that holds
    /// them inline: the reader checks them with a cheaper test) or, like every other str, to
    /// [`str`](Self::str) as a `&str`.
    const SHORT_TEXT: bool = true;
    /// Whether the sink only counts (the validator): it ignores the value a scalar that owns
    /// nothing carries (nil, bool, int, float) and the text of a str. The reader then steps
    /// over such a scalar by its width, and over a short ASCII str, and tells the sink with
    /// [`leaf`](Self::leaf) (outside strict mode, which checks each width).
    const COUNTS_ONLY: bool = false;
    /// Containers open around the next item.
    fn depth(&self) -> usize;
    /// Levels of nesting a container opening next would be inside, for `max_depth`: the
    /// open containers, and for typed decoding also the levels serde recurses through
    /// without a container (an `Option` holding a value, a newtype struct).
    #[inline(always)]
    fn levels(&self) -> usize {
        self.depth()
    }
    /// Items the open containers still need after the one being read now; each needs at
    /// least one more byte of input.
    fn pending_after_current(&self) -> usize;
    /// A scalar that owns no heap: nil, bool, integer, float, timestamp.
    fn scalar(&mut self, value: Value) -> bool;
    /// A str short enough to be held inline, known to be UTF-8. Only a sink whose
    /// [`SHORT_TEXT`](Self::SHORT_TEXT) is true is handed one; for the others it is a broken
    /// invariant, and a nil takes the str's place.
    fn short_str(&mut self, text: ShortText<'a>) -> bool {
        let _ = text;
        crate::invariant::broken("short text handed to a sink that asked for &str");
        self.scalar(Value::Nil)
    }
    /// A longer str, known to be UTF-8.
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind>;
    /// For a sink that [counts only](Self::COUNTS_ONLY): a scalar that owns nothing
    /// (`text_len` 0), or a str of `text_len` bytes known to be UTF-8 and within
    /// `max_str_len`.
    fn leaf(&mut self, text_len: usize) -> Result<bool, ErrorKind> {
        let _ = text_len;
        crate::invariant::broken("a leaf counted for a sink that does not only count");
        Ok(false)
    }
    /// A str that is not UTF-8, under [`InvalidUtf8::Replace`]; the sink replaces it and
    /// checks the result with [`check_len`]. Only the surfaces that can repair a str (the owned
    /// decoder, and the validator judging for it) are handed one; for the others the reader
    /// refuses invalid UTF-8 first, so it is a broken invariant, and a nil takes its place.
    fn invalid_str(&mut self, bytes: &'a [u8], limits: &Limits) -> Result<bool, ErrorKind> {
        let _ = (bytes, limits);
        crate::invariant::broken("invalid UTF-8 handed on though the reader rejects it");
        Ok(self.scalar(Value::Nil))
    }
    /// A bin.
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind>;
    /// An ext other than a timestamp.
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind>;
    /// An array (`is_map` false) or map of `len` children, already checked against its limit,
    /// the room left and the depth.
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind>;
    /// Charges heap the reader itself needs (strict mode's) to the sink's budget.
    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind>;
}

/// The one place a length (or depth) is compared with its limit.
#[inline(always)]
pub(crate) fn check_len(limits: &Limits, limit: Limit, claimed: usize) -> Result<usize, ErrorKind> {
    let max = limits.get(limit);
    if claimed > max {
        return Err(ErrorKind::LimitExceeded {
            limit,
            max,
            claimed,
        });
    }
    Ok(claimed)
}

/// For each text length up to 31: the high bit of each byte of a str of that length after
/// its marker, in a [`LEAF_ITEM_MAX`]-byte window read as four little-endian words.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time: an index out of range fails the build.
static TEXT_HIGH_BITS: [[u64; 4]; LEAF_ITEM_MAX] = {
    let mut masks = [[0u64; 4]; LEAF_ITEM_MAX];
    let mut text_len = 0;
    while text_len < LEAF_ITEM_MAX {
        let mut byte = 1;
        while byte <= text_len {
            masks[text_len][byte / 8] |= 0x80 << (byte % 8 * 8);
            byte += 1;
        }
        text_len += 1;
    }
    masks
};

/// Whether the `text_len` bytes after the marker at the start of `window` are ASCII, with no
/// branch on `text_len` (short strs' lengths vary from one to the next, and a branch on each
/// mispredicted): the window's words masked to those bytes' high bits.
#[inline(always)]
fn ascii_after_marker(window: &[u8; LEAF_ITEM_MAX], text_len: usize) -> bool {
    let Some(masks) = TEXT_HIGH_BITS.get(text_len) else {
        return false;
    };
    let word = |at: usize| {
        window
            .get(at..at.saturating_add(8))
            .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let [m0, m1, m2, m3] = *masks;
    (word(0) & m0 | word(8) & m1 | word(16) & m2 | word(24) & m3) == 0
}

/// Reads items from the input into a sink, checking each.
pub(crate) struct Reader<'a> {
    cur: Cursor<'a>,
    limits: Limits,
    invalid_utf8: InvalidUtf8,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(input: &'a [u8], limits: &Limits, invalid_utf8: InvalidUtf8) -> Self {
        Self::resume(Cursor::new(input), limits, invalid_utf8)
    }

    /// A reader that goes on from `cur`.
    pub(crate) fn resume(cur: Cursor<'a>, limits: &Limits, invalid_utf8: InvalidUtf8) -> Self {
        Reader {
            cur,
            limits: limits.clone(),
            invalid_utf8,
        }
    }

    /// Where the reader is.
    pub(crate) fn cursor(&self) -> &Cursor<'a> {
        &self.cur
    }

    /// The next item, not read, when it is a scalar that owns nothing of one of the `KINDS`
    /// (see [`Header::peek_plain_scalar`]) and the input holds all of it; with its length, for [`skip_peeked`]
    /// (Self::skip_peeked). No limit applies to one and it opens nothing, so no check
    /// is left but strict mode's, which a caller in strict mode must not skip.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_plain_scalar<const KINDS: u8>(&self) -> Option<(Header, usize)> {
        Header::peek_plain_scalar::<KINDS>(&self.cur)
    }

    /// See [`Header::peek_short_integer`].
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_short_integer<const HOLDS_U8: bool, const HOLDS_NEGATIVE: bool>(
        &self,
    ) -> Option<(Result<u64, i64>, usize)> {
        Header::peek_short_integer::<HOLDS_U8, HOLDS_NEGATIVE>(&self.cur)
    }

    /// Steps over the item a peek found (a plain scalar, a str, a bin), `len` bytes long.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn skip_peeked(&mut self, len: usize) {
        let skipped = self.cur.take(len);
        debug_assert!(skipped.is_ok(), "a peeked item the input does not hold");
    }

    /// The next item, not read, when it is a str with a short header (fixstr, str 8) that
    /// passes every check (`max_str_len`, UTF-8); with its length, for
    /// [`skip_peeked`](Self::skip_peeked). `None` for anything else, a refusal
    /// included: [`step`](Self::step) reads it and makes the error. Not for strict mode.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_str(&self) -> Option<(&'a str, usize)> {
        let (bytes, len) = self.peek_str_bytes()?;
        Some((core::str::from_utf8(bytes).ok()?, len))
    }

    /// [`peek_str`](Self::peek_str) but for the UTF-8 check: the str's bytes, for a caller
    /// that checks them some other way (equal to a known str's).
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_str_bytes(&self) -> Option<(&'a [u8], usize)> {
        let (Header::Str(len), header_len) = Header::peek_short_body(&self.cur)? else {
            return None;
        };
        let len = self.check(Limit::StrLen, len).ok()?;
        Some((
            self.cur.ahead(header_len, len)?,
            header_len.saturating_add(len),
        ))
    }

    /// [`peek_str`](Self::peek_str) for a bin (bin 8, within `max_bin_len`).
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_bin(&self) -> Option<(&'a [u8], usize)> {
        let (Header::Bin(len), header_len) = Header::peek_short_body(&self.cur)? else {
            return None;
        };
        let len = self.check(Limit::BinLen, len).ok()?;
        let bytes = self.cur.ahead(header_len, len)?;
        Some((bytes, header_len.saturating_add(len)))
    }

    /// Moves the reader back to `pos` (an item's start, after the step reading it failed
    /// partway through).
    pub(crate) fn rewind(&mut self, pos: usize) {
        self.cur = Cursor::at(self.cur.input(), pos);
    }

    /// Feeds the sink one value's items; returns the bytes the value took. An error carries
    /// the offset of the item it is about and the depth there.
    #[inline(always)]
    pub(crate) fn value<S: Sink<'a>>(&mut self, sink: &mut S) -> Result<usize, Error> {
        loop {
            if self.step(sink, None)? {
                return Ok(self.cur.position());
            }
        }
    }

    /// [`value`](Self::value) in strict mode, with its state. (Strict mode is a parameter,
    /// not a field: the lenient reader, with `None` known at compile time, carries no trace
    /// of it, where a field would be tested on every item of every surface.)
    pub(crate) fn value_strict<S: Sink<'a>>(
        &mut self,
        sink: &mut S,
        strict: &mut Strict<'a>,
    ) -> Result<usize, Error> {
        loop {
            if self.step(sink, Some(strict))? {
                return Ok(self.cur.position());
            }
        }
    }

    /// Feeds the sink one item (checked in strict mode too when `strict` is given). True when
    /// it finished the top-level value.
    #[inline(always)]
    pub(crate) fn step<S: Sink<'a>>(
        &mut self,
        sink: &mut S,
        mut strict: Option<&mut Strict<'a>>,
    ) -> Result<bool, Error> {
        let start = self.cur.position();
        let finished = self
            .item(sink, start, strict.as_deref_mut())
            .map_err(|kind| Error::new(kind, start, sink.depth()))?;
        if let Some(strict) = strict {
            let end = self.cur.position();
            strict.settle(self.cur.input(), end, sink.depth(), sink)?;
        }
        // Every item is at least its marker byte, so a loop of steps ends on any input.
        debug_assert!(
            self.cur.position() > start,
            "a decode step consumed no input"
        );
        Ok(finished)
    }

    /// The input ended inside the current item, `missing` bytes short; every item the open
    /// containers still expect after it needs at least one more byte.
    fn incomplete(&self, e: Incomplete, sink: &impl Sink<'a>) -> ErrorKind {
        ErrorKind::UnexpectedEnd {
            needed: e.needed.saturating_add(sink.pending_after_current()),
        }
    }

    fn check(&self, limit: Limit, claimed: u32) -> Result<usize, ErrorKind> {
        // A u32 always fits usize on the 32- and 64-bit targets this crate supports.
        check_len(
            &self.limits,
            limit,
            usize::try_from(claimed).unwrap_or(usize::MAX),
        )
    }

    fn body(&mut self, len: usize, sink: &impl Sink<'a>) -> Result<&'a [u8], ErrorKind> {
        match self.cur.take(len) {
            Ok(bytes) => Ok(bytes),
            Err(e) => Err(self.incomplete(e, sink)),
        }
    }

    /// Reads one item and hands it to the sink. True when it finished the document.
    #[inline(always)]
    fn item<S: Sink<'a>>(
        &mut self,
        sink: &mut S,
        start: usize,
        strict: Option<&mut Strict<'a>>,
    ) -> Result<bool, ErrorKind> {
        if S::COUNTS_ONLY && strict.is_none() {
            // The commonest items (scalars and short strs: keys, most values) with one table
            // load and no branch on which they are, instead of decoding each to throw its
            // value away: validation's time went to mispredicted branches on the marker.
            if let Some(window) = self.cur.window::<LEAF_ITEM_MAX>() {
                let [marker, ..] = *window;
                let [len, text_len] = leaf_item(marker);
                let text_len = usize::from(text_len);
                if len != 0
                    && check_len(&self.limits, Limit::StrLen, text_len).is_ok()
                    && ascii_after_marker(window, text_len)
                {
                    // The window holds the whole item: LEAF_ITEM_MAX is the longest.
                    self.body(usize::from(len), sink)?;
                    return sink.leaf(text_len);
                }
            } else if let Some(marker) = self.cur.peek_u8() {
                // Near the end of the input (a copy into a padded window cost more than it
                // saved): scalars still by the table.
                if let Some(body) = plain_scalar_body(marker) {
                    self.body(1 + usize::from(body), sink)?;
                    return sink.leaf(0);
                }
            }
        }
        let header = match Header::read(&mut self.cur) {
            Ok(h) => h,
            Err(HeaderError::Incomplete(e)) => return Err(self.incomplete(e, sink)),
            Err(HeaderError::ReservedMarker) => return Err(ErrorKind::ReservedMarker),
        };
        let mut strict = strict;
        if let Some(strict) = strict.as_deref_mut() {
            strict.header(&header, self.cur.since(start), start, sink)?;
        }
        match header {
            Header::Nil => Ok(sink.scalar(Value::Nil)),
            Header::Bool(v) => Ok(sink.scalar(Value::Bool(v))),
            Header::Uint(n) => Ok(sink.scalar(Value::Integer(n.into()))),
            Header::Int(n) => Ok(sink.scalar(Value::Integer(n.into()))),
            Header::F32(x) => Ok(sink.scalar(Value::F32(x))),
            Header::F64(x) => Ok(sink.scalar(Value::F64(x))),
            Header::Str(len) => self.str(len, sink),
            Header::Bin(len) => {
                let len = self.check(Limit::BinLen, len)?;
                let bytes = self.body(len, sink)?;
                sink.bin(bytes)
            }
            Header::Ext { ext_type, len } => {
                let len = self.check(Limit::ExtLen, len)?;
                let payload = self.body(len, sink)?;
                if ext_type == TIMESTAMP_EXT_TYPE {
                    let ts = Timestamp::from_ext_payload(payload)
                        .map_err(ErrorKind::InvalidTimestamp)?;
                    if let Some(strict) = strict {
                        strict.timestamp(ts, self.cur.since(start))?;
                    }
                    Ok(sink.scalar(Value::Timestamp(ts)))
                } else {
                    sink.ext(ext_type, payload)
                }
            }
            Header::Array(len) => self.container(false, len, sink),
            Header::Map(len) => self.container(true, len, sink),
        }
    }

    /// An array (`is_map` false) or map of `len` children, its header read.
    #[inline(always)]
    fn container<S: Sink<'a>>(
        &mut self,
        is_map: bool,
        len: u32,
        sink: &mut S,
    ) -> Result<bool, ErrorKind> {
        let (limit, per_child) = if is_map {
            (Limit::MapLen, 2)
        } else {
            (Limit::ArrayLen, 1)
        };
        let len = self.check_container(
            limit,
            usize::try_from(len).unwrap_or(usize::MAX),
            per_child,
            (sink.levels(), sink.pending_after_current()),
            self.cur.remaining(),
        )?;
        sink.open(is_map, len)
    }

    /// Every check on a container's header, in this order: its `len` against `limit`; room
    /// in the `left` bytes after the header for its children (`per_child` bytes each: every
    /// item is at least one) and for the items the open containers still expect after it;
    /// and one level more than those open (`open`: the levels, and the items pending).
    #[inline(always)]
    fn check_container(
        &self,
        limit: Limit,
        len: usize,
        per_child: usize,
        open: (usize, usize),
        left: usize,
    ) -> Result<usize, ErrorKind> {
        let (levels, pending) = open;
        let len = check_len(&self.limits, limit, len)?;
        let needs = len.saturating_mul(per_child).saturating_add(pending);
        if needs > left {
            return Err(ErrorKind::UnexpectedEnd {
                needed: needs.saturating_sub(left),
            });
        }
        self.check_deeper(levels)?;
        Ok(len)
    }

    /// The check on one more level of nesting (a container's header, an `Option`'s or a
    /// newtype's content) below `levels` open: `max_depth`.
    #[inline(always)]
    pub(crate) fn check_deeper(&self, levels: usize) -> Result<(), ErrorKind> {
        check_len(&self.limits, Limit::Depth, levels.saturating_add(1)).map(drop)
    }

    /// Whether an array header of `len` elements, `header_len` bytes where the reader
    /// stands, passes every check [`step`](Self::step) makes on it with `open` (the levels
    /// open, and the items pending after it): for a caller that reads it by a peek.
    #[inline(always)]
    #[cfg(feature = "derive")]
    pub(crate) fn array_passes(&self, len: usize, header_len: usize, open: (usize, usize)) -> bool {
        let left = self.cur.remaining().saturating_sub(header_len);
        self.check_container(Limit::ArrayLen, len, 1, open, left)
            .is_ok()
    }

    /// Whether a value read by a peek, whose headers are `levels` deep and `widest` long at
    /// most, with `left` bytes after it, passes every check [`step`](Self::step) would make
    /// on its headers with `open` (the levels open, and the items pending after it): its
    /// deepest header one level below the rest, the widest against `max_array_len`, and the
    /// room for what is pending (its own items, all read, need none).
    #[inline(always)]
    #[cfg(feature = "derive")]
    pub(crate) fn peeked_passes(
        &self,
        levels: usize,
        widest: usize,
        open: (usize, usize),
        left: usize,
    ) -> bool {
        let (open_levels, pending) = open;
        let above_deepest = open_levels.saturating_add(levels.saturating_sub(1));
        self.check_container(Limit::ArrayLen, widest, 0, (above_deepest, pending), left)
            .is_ok()
    }

    /// A str of `len` bytes, its header read.
    #[inline(always)]
    fn str<S: Sink<'a>>(&mut self, len: u32, sink: &mut S) -> Result<bool, ErrorKind> {
        let len = self.check(Limit::StrLen, len)?;
        let bytes = self.body(len, sink)?;
        self.text(bytes, sink)
    }

    /// A str's bytes, within its limit: checked as UTF-8 and handed to the sink.
    #[inline(always)]
    fn text<S: Sink<'a>>(&mut self, bytes: &'a [u8], sink: &mut S) -> Result<bool, ErrorKind> {
        if S::SHORT_TEXT {
            if let Some(short) = ShortText::new(bytes) {
                return Ok(sink.short_str(short));
            }
        }
        // Longer than inline text, or not UTF-8.
        match core::str::from_utf8(bytes) {
            Ok(text) => sink.str(text),
            Err(e) => match self.invalid_utf8 {
                InvalidUtf8::Reject => Err(ErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                }),
                InvalidUtf8::Replace => sink.invalid_str(bytes, &self.limits),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A str or bin of `body` with the header `header`, cut to `cut` bytes.
    #[cfg(feature = "serde")]
    fn short_text(header: &[u8], body: &[u8], cut: usize) -> Vec<u8> {
        let mut bytes = [header, body].concat();
        bytes.truncate(cut);
        bytes
    }

    #[test]
    #[cfg(feature = "serde")]
    fn a_short_str_or_bin_peeks_only_when_it_is_whole_and_passes_every_check() {
        for len in [0usize, 1, 5, 31, 32, 200] {
            let len8 = u8::try_from(len).expect("short");
            use crate::wire::header::marker::{BIN8, STR8};
            let mut headers = vec![(vec![STR8, len8], false), (vec![BIN8, len8], true)];
            if len < 32 {
                headers.push((vec![0xa0 | len8], false));
            }
            for (header, is_bin) in headers {
                for valid in [true, false] {
                    let mut body = vec![b'a'; len];
                    if let (false, Some(last)) = (valid, body.last_mut()) {
                        *last = 0xff;
                    }
                    for limit in [len.saturating_sub(1), len, 1000] {
                        let limits = Limits {
                            max_str_len: limit,
                            max_bin_len: limit,
                            ..Limits::default()
                        };
                        let whole = header.len() + len;
                        for cut in [whole, whole.saturating_sub(1)] {
                            let bytes = short_text(&header, &body, cut);
                            let reader = Reader::new(&bytes, &limits, InvalidUtf8::Reject);
                            let passes = cut == whole && len <= limit;
                            let context = format!(
                                "header {header:02x?}, {len} bytes, valid {valid}, \
                                 limit {limit}, cut at {cut}"
                            );
                            let expected_bin = (is_bin && passes).then(|| (&body[..], whole));
                            assert_eq!(reader.peek_bin(), expected_bin, "{context}");
                            let expected_str = (!is_bin && passes)
                                .then(|| core::str::from_utf8(&body).ok())
                                .flatten()
                                .map(|text| (text, whole));
                            assert_eq!(reader.peek_str(), expected_str, "{context}");
                            assert_eq!(reader.cursor().position(), 0, "a peek takes nothing");
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(feature = "serde")]
    fn the_reader_peeks_a_plain_scalar_as_the_header_does() {
        use crate::wire::header::scalar_kinds::{ALL, INTEGER};
        let limits = Limits::default();
        for bytes in [
            &[0x05][..],
            &[0xcd, 0x01, 0x00],
            &[0xc3],
            &[0xa1, b'a'],
            &[0xcd, 0x01],
        ] {
            let reader = Reader::new(bytes, &limits, InvalidUtf8::Reject);
            let header = Header::peek_plain_scalar::<ALL>(reader.cursor());
            assert_eq!(reader.peek_plain_scalar::<ALL>(), header, "{bytes:02x?}");
            let integer = header.filter(|(h, _)| matches!(h, Header::Uint(_) | Header::Int(_)));
            assert_eq!(
                reader.peek_plain_scalar::<INTEGER>(),
                integer,
                "{bytes:02x?}"
            );
        }
        let reader = Reader::new(&[0xcd, 0x01, 0x00], &limits, InvalidUtf8::Reject);
        assert_eq!(
            reader.peek_plain_scalar::<INTEGER>(),
            Some((Header::Uint(256), 3))
        );
    }

    #[test]
    fn the_ascii_check_sees_exactly_the_text_after_the_marker() {
        for text_len in 0..LEAF_ITEM_MAX {
            let mut window = [b'a'; LEAF_ITEM_MAX];
            window[0] = 0xff;
            assert!(ascii_after_marker(&window, text_len), "length {text_len}");
            for high_at in 1..LEAF_ITEM_MAX {
                let mut odd = window;
                odd[high_at] = 0x80;
                assert_eq!(
                    ascii_after_marker(&odd, text_len),
                    high_at > text_len,
                    "length {text_len}, high bit at {high_at}"
                );
            }
        }
        // Two high bits in the same place of different words must not cancel out.
        for text_len in 0..LEAF_ITEM_MAX {
            for first in 1..LEAF_ITEM_MAX {
                for second in first..LEAF_ITEM_MAX {
                    let mut odd = [b'a'; LEAF_ITEM_MAX];
                    odd[first] = 0xc3;
                    odd[second] = 0xc3;
                    assert_eq!(
                        ascii_after_marker(&odd, text_len),
                        first > text_len,
                        "length {text_len}, high bits at {first} and {second}"
                    );
                }
            }
        }
        assert!(!ascii_after_marker(&[0x80; LEAF_ITEM_MAX], 1));
        // Past the table: not claimed ASCII.
        assert!(!ascii_after_marker(&[b'a'; LEAF_ITEM_MAX], LEAF_ITEM_MAX));
    }
}
