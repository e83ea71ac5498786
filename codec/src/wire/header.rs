//! MessagePack headers: one marker byte plus its fixed-size fields, read and written, without
//! bodies and without allocating. Both directions use the marker table below, so the reader
//! and the writer cannot disagree on a marker.
//!
//! ```text
//! 0x00-0x7f positive fixint   0x80-0x8f fixmap    0x90-0x9f fixarray  0xa0-0xbf fixstr
//! 0xc0 nil  0xc1 (reserved)   0xc2/0xc3 false/true
//! 0xc4-0xc6 bin 8/16/32       0xc7-0xc9 ext 8/16/32     0xca/0xcb float 32/64
//! 0xcc-0xcf uint 8..64        0xd0-0xd3 int 8..64       0xd4-0xd8 fixext 1/2/4/8/16
//! 0xd9-0xdb str 8/16/32       0xdc/0xdd array 16/32     0xde/0xdf map 16/32
//! 0xe0-0xff negative fixint
//! ```

use crate::prelude::*;
use crate::wire::cursor::{Cursor, Incomplete};

/// The marker bytes.
pub(crate) mod marker {
    pub(crate) const FIXMAP: u8 = 0x80;
    pub(crate) const FIXARRAY: u8 = 0x90;
    pub(crate) const FIXSTR: u8 = 0xa0;
    pub(crate) const NIL: u8 = 0xc0;
    pub(crate) const RESERVED: u8 = 0xc1;
    pub(crate) const FALSE: u8 = 0xc2;
    pub(crate) const TRUE: u8 = 0xc3;
    pub(crate) const BIN8: u8 = 0xc4;
    pub(crate) const BIN16: u8 = 0xc5;
    pub(crate) const BIN32: u8 = 0xc6;
    pub(crate) const EXT8: u8 = 0xc7;
    pub(crate) const EXT16: u8 = 0xc8;
    pub(crate) const EXT32: u8 = 0xc9;
    pub(crate) const F32: u8 = 0xca;
    pub(crate) const F64: u8 = 0xcb;
    pub(crate) const UINT8: u8 = 0xcc;
    pub(crate) const UINT16: u8 = 0xcd;
    pub(crate) const UINT32: u8 = 0xce;
    pub(crate) const UINT64: u8 = 0xcf;
    pub(crate) const INT8: u8 = 0xd0;
    pub(crate) const INT16: u8 = 0xd1;
    pub(crate) const INT32: u8 = 0xd2;
    pub(crate) const INT64: u8 = 0xd3;
    pub(crate) const FIXEXT1: u8 = 0xd4;
    pub(crate) const FIXEXT2: u8 = 0xd5;
    pub(crate) const FIXEXT4: u8 = 0xd6;
    pub(crate) const FIXEXT8: u8 = 0xd7;
    pub(crate) const FIXEXT16: u8 = 0xd8;
    pub(crate) const STR8: u8 = 0xd9;
    pub(crate) const STR16: u8 = 0xda;
    pub(crate) const STR32: u8 = 0xdb;
    pub(crate) const ARRAY16: u8 = 0xdc;
    pub(crate) const ARRAY32: u8 = 0xdd;
    pub(crate) const MAP16: u8 = 0xde;
    pub(crate) const MAP32: u8 = 0xdf;
}

use marker::*;

/// The format a marker byte starts, as the MessagePack specification names it.
pub(crate) fn marker_name(m: u8) -> &'static str {
    match m {
        0x00..=0x7f => "positive fixint",
        0x80..=0x8f => "fixmap",
        0x90..=0x9f => "fixarray",
        0xa0..=0xbf => "fixstr",
        NIL => "nil",
        RESERVED => "(never used)",
        FALSE => "false",
        TRUE => "true",
        BIN8 => "bin 8",
        BIN16 => "bin 16",
        BIN32 => "bin 32",
        EXT8 => "ext 8",
        EXT16 => "ext 16",
        EXT32 => "ext 32",
        F32 => "float 32",
        F64 => "float 64",
        UINT8 => "uint 8",
        UINT16 => "uint 16",
        UINT32 => "uint 32",
        UINT64 => "uint 64",
        INT8 => "int 8",
        INT16 => "int 16",
        INT32 => "int 32",
        INT64 => "int 64",
        FIXEXT1 => "fixext 1",
        FIXEXT2 => "fixext 2",
        FIXEXT4 => "fixext 4",
        FIXEXT8 => "fixext 8",
        FIXEXT16 => "fixext 16",
        STR8 => "str 8",
        STR16 => "str 16",
        STR32 => "str 32",
        ARRAY16 => "array 16",
        ARRAY32 => "array 32",
        MAP16 => "map 16",
        MAP32 => "map 32",
        0xe0..=0xff => "negative fixint",
    }
}

/// Lengths below this fit a fixstr marker.
const FIXSTR_LIMIT: u32 = 32;
/// Lengths below this fit a fixarray or fixmap marker.
const FIXCONTAINER_LIMIT: u32 = 16;

/// One header: a scalar complete in itself, or the length of a body or container that follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Header {
    Nil,
    Bool(bool),
    /// A positive fixint or uint 8/16/32/64.
    Uint(u64),
    /// A negative fixint or int 8/16/32/64 (which may hold a non-negative value).
    Int(i64),
    F32(f32),
    F64(f64),
    /// A str of this many bytes follows.
    Str(u32),
    /// A bin of this many bytes follows.
    Bin(u32),
    /// This many values follow.
    Array(u32),
    /// This many key-value pairs follow.
    Map(u32),
    /// An ext payload of `len` bytes follows.
    Ext {
        ext_type: i8,
        len: u32,
    },
}

/// Why a header could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeaderError {
    /// The input ended inside the header.
    Incomplete(Incomplete),
    /// The reserved marker 0xc1.
    ReservedMarker,
}

impl From<Incomplete> for HeaderError {
    fn from(e: Incomplete) -> Self {
        HeaderError::Incomplete(e)
    }
}

fn len8(cur: &mut Cursor<'_>) -> Result<u32, Incomplete> {
    cur.take_u8().map(u32::from)
}

fn len16(cur: &mut Cursor<'_>) -> Result<u32, Incomplete> {
    cur.take_array().map(u16::from_be_bytes).map(u32::from)
}

fn len32(cur: &mut Cursor<'_>) -> Result<u32, Incomplete> {
    cur.take_array().map(u32::from_be_bytes)
}

fn ext(cur: &mut Cursor<'_>, len: u32) -> Result<Header, Incomplete> {
    let ext_type = i8::from_be_bytes(cur.take_array()?);
    Ok(Header::Ext { ext_type, len })
}

/// For the marker of a scalar that owns nothing (nil, bool, int, float), how many bytes
/// follow it. (A match on one byte with small answers: compiled to a table lookup.)
#[inline(always)]
pub(crate) const fn plain_scalar_body(marker: u8) -> Option<u8> {
    match marker {
        0x00..=0x7f | 0xe0..=0xff | NIL | FALSE | TRUE => Some(0),
        UINT8 | INT8 => Some(1),
        UINT16 | INT16 => Some(2),
        F32 | UINT32 | INT32 => Some(4),
        F64 | UINT64 | INT64 => Some(8),
        _ => None,
    }
}

/// Kinds of scalar that owns nothing, as bits: which [`Header::peek_plain_scalar`] reads.
#[cfg(any(feature = "serde", test))]
pub(crate) mod scalar_kinds {
    /// Nil (serde's unit; not named `NIL`, which is the marker).
    pub(crate) const UNIT: u8 = 1;
    pub(crate) const BOOL: u8 = 2;
    /// Ints of every width, positive and negative fixints.
    pub(crate) const INTEGER: u8 = 4;
    pub(crate) const FLOAT: u8 = 8;
    #[cfg(test)]
    pub(crate) const ALL: u8 = UNIT | BOOL | INTEGER | FLOAT;
}

/// The longest item [`leaf_item`] describes: a fixstr of 31 bytes and its marker.
pub(crate) const LEAF_ITEM_MAX: usize = 32;

/// For each marker, `[the item's length, the length of its text]` when the marker alone
/// says how long the item is and it holds no children and nothing to check but text: a
/// scalar that owns nothing (`[1 + body, 0]`) or a fixstr (`[1 + n, n]`). `[0, 0]` for every
/// other marker.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time: an index out of range fails the build.
static LEAF_ITEMS: [[u8; 2]; 256] = {
    let mut table = [[0u8; 2]; 256];
    let mut index = 0usize;
    while index < 256 {
        // In range: the loop stops at 256.
        let m = index as u8;
        table[index] = match plain_scalar_body(m) {
            Some(body) => [1 + body, 0],
            None if m & 0xe0 == FIXSTR => {
                let text = m & 0x1f;
                [1 + text, text]
            }
            None => [0, 0],
        };
        index += 1;
    }
    table
};

/// The entry of [`LEAF_ITEMS`] for `marker`: one load, no branch on the kind of item.
#[inline(always)]
pub(crate) fn leaf_item(marker: u8) -> [u8; 2] {
    LEAF_ITEMS
        .get(usize::from(marker))
        .copied()
        .unwrap_or_default()
}

impl Header {
    /// A scalar that owns nothing (nil, bool, int, float) of one of the `KINDS` (bits of
    /// [`scalar_kinds`]) at the cursor, and its length, when the input holds all of it: not
    /// taken. `None` for any other item or one the input cuts short. (The same decoding as
    /// [`read`](Self::read), which a test checks on every marker and every cut; written apart
    /// because it takes nothing, and is as small as the kinds asked for: a copy of the
    /// cursor to read ahead would go through memory.)
    #[inline(always)]
    #[cfg(any(feature = "serde", test))]
    pub(crate) fn peek_plain_scalar<const KINDS: u8>(cur: &Cursor<'_>) -> Option<(Header, usize)> {
        let nil = KINDS & scalar_kinds::UNIT != 0;
        let bool = KINDS & scalar_kinds::BOOL != 0;
        let int = KINDS & scalar_kinds::INTEGER != 0;
        let float = KINDS & scalar_kinds::FLOAT != 0;
        let m = cur.peek_u8()?;
        Some(match m {
            0x00..=0x7f if int => (Header::Uint(u64::from(m)), 1),
            0xe0..=0xff if int => (Header::Int(i64::from(i8::from_ne_bytes([m]))), 1),
            NIL if nil => (Header::Nil, 1),
            FALSE if bool => (Header::Bool(false), 1),
            TRUE if bool => (Header::Bool(true), 1),
            F32 if float => (Header::F32(f32::from_be_bytes(cur.after_marker()?)), 5),
            F64 if float => (Header::F64(f64::from_be_bytes(cur.after_marker()?)), 9),
            UINT8 if int => (
                Header::Uint(u64::from(u8::from_be_bytes(cur.after_marker()?))),
                2,
            ),
            UINT16 if int => (
                Header::Uint(u64::from(u16::from_be_bytes(cur.after_marker()?))),
                3,
            ),
            UINT32 if int => (
                Header::Uint(u64::from(u32::from_be_bytes(cur.after_marker()?))),
                5,
            ),
            UINT64 if int => (Header::Uint(u64::from_be_bytes(cur.after_marker()?)), 9),
            INT8 if int => (
                Header::Int(i64::from(i8::from_be_bytes(cur.after_marker()?))),
                2,
            ),
            INT16 if int => (
                Header::Int(i64::from(i16::from_be_bytes(cur.after_marker()?))),
                3,
            ),
            INT32 if int => (
                Header::Int(i64::from(i32::from_be_bytes(cur.after_marker()?))),
                5,
            ),
            INT64 if int => (Header::Int(i64::from_be_bytes(cur.after_marker()?)), 9),
            _ => return None,
        })
    }

    /// The forms of an integer one byte or a marker and one byte long that a type can hold,
    /// per `HOLDS_U8` (a uint 8: the type holds 0..=255) and `HOLDS_NEGATIVE` (a negative
    /// fixint: the type holds -32..=-1): a positive fixint, a negative fixint, a uint 8. The
    /// value (`Ok` when non-negative, `Err` when negative, as
    /// [`peek_plain_scalar`](Self::peek_plain_scalar)'s `Uint` and `Int`) and the length,
    /// not taken; `None` for any other item, one of these the input cuts short included.
    /// The forms are told apart by branches, not a select: with a select, where the next item
    /// starts waits on this item's marker, a chain through a sequence's elements, where a
    /// predicted branch lets the reads run ahead. A `Vec<u8>` of small values, the common
    /// case, decoded 2.2 times as fast this way (a select made it slower than rmp-serde's);
    /// bytes of no pattern, where the branch mispredicts half the time, 1.9 times as slow.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_short_integer<const HOLDS_U8: bool, const HOLDS_NEGATIVE: bool>(
        cur: &Cursor<'_>,
    ) -> Option<(Result<u64, i64>, usize)> {
        let m = cur.peek_u8()?;
        if m < 0x80 {
            return Some((Ok(u64::from(m)), 1));
        }
        if HOLDS_U8 && m == UINT8 {
            let [next] = cur.after_marker()?;
            return Some((Ok(u64::from(next)), 2));
        }
        if HOLDS_NEGATIVE && m >= 0xe0 {
            return Some((Err(i64::from(i8::from_ne_bytes([m]))), 1));
        }
        None
    }

    /// The header of a str or bin whose length is in its marker or the byte after it
    /// (fixstr, str 8, bin 8: short text and bytes), and the header's length: not taken.
    /// `None` for any other item or one the input cuts short.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn peek_short_body(cur: &Cursor<'_>) -> Option<(Header, usize)> {
        let m = cur.peek_u8()?;
        let len8 = || cur.after_marker().map(|[len]| u32::from(len));
        Some(match m {
            0xa0..=0xbf => (Header::Str(u32::from(m & 0x1f)), 1),
            STR8 => (Header::Str(len8()?), 2),
            BIN8 => (Header::Bin(len8()?), 2),
            _ => return None,
        })
    }

    /// Reads one header. On error the cursor may have advanced partway. Inlined into each
    /// reader loop, where it runs once per item.
    #[inline(always)]
    pub(crate) fn read(cur: &mut Cursor<'_>) -> Result<Header, HeaderError> {
        let m = cur.take_u8()?;
        let header = match m {
            0x00..=0x7f => Header::Uint(u64::from(m)),
            0x80..=0x8f => Header::Map(u32::from(m & 0x0f)),
            0x90..=0x9f => Header::Array(u32::from(m & 0x0f)),
            0xa0..=0xbf => Header::Str(u32::from(m & 0x1f)),
            NIL => Header::Nil,
            RESERVED => return Err(HeaderError::ReservedMarker),
            FALSE => Header::Bool(false),
            TRUE => Header::Bool(true),
            BIN8 => Header::Bin(len8(cur)?),
            BIN16 => Header::Bin(len16(cur)?),
            BIN32 => Header::Bin(len32(cur)?),
            EXT8 => {
                let len = len8(cur)?;
                ext(cur, len)?
            }
            EXT16 => {
                let len = len16(cur)?;
                ext(cur, len)?
            }
            EXT32 => {
                let len = len32(cur)?;
                ext(cur, len)?
            }
            F32 => Header::F32(f32::from_be_bytes(cur.take_array()?)),
            F64 => Header::F64(f64::from_be_bytes(cur.take_array()?)),
            UINT8 => Header::Uint(u64::from(cur.take_u8()?)),
            UINT16 => Header::Uint(u64::from(u16::from_be_bytes(cur.take_array()?))),
            UINT32 => Header::Uint(u64::from(u32::from_be_bytes(cur.take_array()?))),
            UINT64 => Header::Uint(u64::from_be_bytes(cur.take_array()?)),
            INT8 => Header::Int(i64::from(i8::from_be_bytes(cur.take_array()?))),
            INT16 => Header::Int(i64::from(i16::from_be_bytes(cur.take_array()?))),
            INT32 => Header::Int(i64::from(i32::from_be_bytes(cur.take_array()?))),
            INT64 => Header::Int(i64::from_be_bytes(cur.take_array()?)),
            FIXEXT1 => ext(cur, 1)?,
            FIXEXT2 => ext(cur, 2)?,
            FIXEXT4 => ext(cur, 4)?,
            FIXEXT8 => ext(cur, 8)?,
            FIXEXT16 => ext(cur, 16)?,
            STR8 => Header::Str(len8(cur)?),
            STR16 => Header::Str(len16(cur)?),
            STR32 => Header::Str(len32(cur)?),
            ARRAY16 => Header::Array(len16(cur)?),
            ARRAY32 => Header::Array(len32(cur)?),
            MAP16 => Header::Map(len16(cur)?),
            MAP32 => Header::Map(len32(cur)?),
            0xe0..=0xff => Header::Int(i64::from(i8::from_be_bytes([m]))),
        };
        Ok(header)
    }

    /// Appends this header in its smallest form: the fix forms where the value fits, then the
    /// narrowest width; a non-negative `Int` is written as a uint. (The encoder, which knows
    /// each kind already, calls the writers below directly; this is their one dispatch, for
    /// code that holds a `Header`: the tests' read/write round trip, and the token reader.)
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline]
    pub(crate) fn write(self, out: &mut Vec<u8>) {
        match self {
            Header::Nil => out.push(NIL),
            Header::Bool(b) => write_bool(b, out),
            Header::Uint(n) => write_uint(n, out),
            Header::Int(n) => match u64::try_from(n) {
                Ok(u) => write_uint(u, out),
                Err(_) => write_negative(n, out),
            },
            Header::F32(x) => write_f32(x, out),
            Header::F64(x) => write_f64(x, out),
            Header::Str(len) => write_str_len(len, out),
            Header::Bin(len) => write_bin_len(len, out),
            Header::Array(len) => write_array_len(len, out),
            Header::Map(len) => write_map_len(len, out),
            Header::Ext { ext_type, len } => write_ext_header(ext_type, len, out),
        }
    }
}

/// Where the writers below put their bytes: the output `Vec`, which grows, or (for the derive
/// path) a slice of room reserved in it, whose position is a local: the compiler need not
/// load the `Vec`'s length and capacity again after every byte.
pub(crate) trait Sink {
    fn push(&mut self, byte: u8);
    fn extend_from_slice(&mut self, bytes: &[u8]);
    /// Takes back the last `n` bytes written.
    #[cfg(feature = "serde")]
    fn take_back(&mut self, n: usize);
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }
    #[inline(always)]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        Vec::extend_from_slice(self, bytes);
    }
    #[inline(always)]
    #[cfg(feature = "serde")]
    fn take_back(&mut self, n: usize) {
        self.truncate(self.len().saturating_sub(n));
    }
}

// One writer per header kind, so an encoder that already knows the kind writes it without
// building a `Header` and dispatching on it again. Each appends its marker and fields in one
// `extend_from_slice` of a fixed array: one capacity check a header, not one a byte.

/// Appends `marker` followed by `field`.
#[inline(always)]
fn put<const N: usize>(out: &mut impl Sink, marker: u8, field: [u8; N]) {
    const { assert!(N <= 8, "a header's fields are at most 8 bytes") };
    let mut bytes = [marker; 9];
    if let Some(slot) = bytes.get_mut(1..=N) {
        slot.copy_from_slice(&field);
    }
    out.extend_from_slice(bytes.get(..=N).unwrap_or(&bytes));
}

#[inline]
pub(crate) fn write_nil(out: &mut impl Sink) {
    out.push(NIL);
}

#[inline]
pub(crate) fn write_bool(b: bool, out: &mut impl Sink) {
    out.push(if b { TRUE } else { FALSE });
}

#[inline]
pub(crate) fn write_f32(x: f32, out: &mut impl Sink) {
    put(out, F32, x.to_be_bytes());
}

#[inline]
pub(crate) fn write_f64(x: f64, out: &mut impl Sink) {
    put(out, F64, x.to_be_bytes());
}

#[inline]
pub(crate) fn write_str_len(len: u32, out: &mut impl Sink) {
    if len < FIXSTR_LIMIT {
        out.push(FIXSTR | low_bits(len));
    } else {
        write_len(len, Some(STR8), STR16, STR32, out);
    }
}

/// A str: its header and its bytes. A fixstr's bytes (up to 31) are written as two copies of
/// a fixed size that overlap, not by a call to `memcpy` for a few bytes.
#[inline(always)]
#[cfg(feature = "serde")]
pub(crate) fn write_str(text: &str, len: u32, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    if len >= FIXSTR_LIMIT {
        write_len(len, Some(STR8), STR16, STR32, out);
        out.extend_from_slice(bytes);
        return;
    }
    out.push(FIXSTR | low_bits(len));
    match bytes.len() {
        16.. => write_overlapping::<16>(bytes, out),
        8.. => write_overlapping::<8>(bytes, out),
        4.. => write_overlapping::<4>(bytes, out),
        2.. => write_overlapping::<2>(bytes, out),
        _ => {
            if let Some(&b) = bytes.first() {
                out.push(b);
            }
        }
    }
}

/// `bytes` (`N` to `2 * N` long) written as their first `N` and their last `N`: the second
/// copy overwrites what the two share.
#[inline(always)]
#[cfg(feature = "serde")]
fn write_overlapping<const N: usize>(bytes: &[u8], out: &mut Vec<u8>) {
    let (Some(head), Some(tail)) = (bytes.first_chunk::<N>(), bytes.last_chunk::<N>()) else {
        out.extend_from_slice(bytes);
        return;
    };
    let end = out.len().saturating_add(bytes.len());
    out.extend_from_slice(head);
    out.truncate(end.saturating_sub(N));
    out.extend_from_slice(tail);
}

#[inline]
pub(crate) fn write_bin_len(len: u32, out: &mut Vec<u8>) {
    write_len(len, Some(BIN8), BIN16, BIN32, out);
}

#[inline]
pub(crate) fn write_array_len(len: u32, out: &mut impl Sink) {
    if len < FIXCONTAINER_LIMIT {
        out.push(FIXARRAY | low_bits(len));
    } else {
        write_len(len, None, ARRAY16, ARRAY32, out);
    }
}

#[inline]
pub(crate) fn write_map_len(len: u32, out: &mut impl Sink) {
    if len < FIXCONTAINER_LIMIT {
        out.push(FIXMAP | low_bits(len));
    } else {
        write_len(len, None, MAP16, MAP32, out);
    }
}

#[inline]
pub(crate) fn write_ext_header(ext_type: i8, len: u32, out: &mut Vec<u8>) {
    match len {
        1 => out.push(FIXEXT1),
        2 => out.push(FIXEXT2),
        4 => out.push(FIXEXT4),
        8 => out.push(FIXEXT8),
        16 => out.push(FIXEXT16),
        _ => write_len(len, Some(EXT8), EXT16, EXT32, out),
    }
    out.extend_from_slice(&ext_type.to_be_bytes());
}

/// The low bits of a fix marker: `len` is below the fix limit (at most 32) here.
#[inline(always)]
fn low_bits(len: u32) -> u8 {
    let bits = u8::try_from(len).ok().filter(|b| *b < 32);
    crate::invariant::expect_or(bits, 0, "a fix-form length above 31")
}

/// A length in the narrowest of the 8- (if the type has one), 16- or 32-bit forms.
#[inline]
fn write_len(len: u32, m8: Option<u8>, m16: u8, m32: u8, out: &mut impl Sink) {
    match (m8, u8::try_from(len), u16::try_from(len)) {
        (Some(m8), Ok(l8), _) => put(out, m8, [l8]),
        (_, _, Ok(l16)) => put(out, m16, l16.to_be_bytes()),
        _ => put(out, m32, len.to_be_bytes()),
    }
}

/// A non-negative integer in its smallest form.
#[inline(always)]
pub(crate) fn write_uint(u: u64, out: &mut impl Sink) {
    if let Ok(b) = u8::try_from(u) {
        if b < 0x80 {
            out.push(b);
        } else {
            put(out, UINT8, [b]);
        }
    } else if let Ok(w) = u16::try_from(u) {
        put(out, UINT16, w.to_be_bytes());
    } else if let Ok(w) = u32::try_from(u) {
        put(out, UINT32, w.to_be_bytes());
    } else {
        put(out, UINT64, u.to_be_bytes());
    }
}

/// A `u8` in its smallest form, a fixint or a uint 8, chosen by selecting, not branching:
/// bytes of no pattern (an address, a checksum) alternate between the two forms, which a
/// branch predictor cannot learn. Two bytes are written and a fixint's second taken back.
/// (Wider types keep [`write_uint`]'s branches: their values' forms follow patterns more
/// often, and the select costs a few instructions more.)
#[inline(always)]
#[cfg(feature = "serde")]
pub(crate) fn write_u8(b: u8, out: &mut impl Sink) {
    let fixint = b < 0x80;
    let bytes = if fixint { [b, 0] } else { [UINT8, b] };
    out.extend_from_slice(&bytes);
    out.take_back(usize::from(fixint));
}

/// A negative integer in its smallest form (a non-negative one is a uint).
#[inline(always)]
pub(crate) fn write_negative(i: i64, out: &mut impl Sink) {
    if let Ok(b) = i8::try_from(i) {
        if b >= -32 {
            out.extend_from_slice(&b.to_be_bytes());
        } else {
            put(out, INT8, b.to_be_bytes());
        }
    } else if let Ok(w) = i16::try_from(i) {
        put(out, INT16, w.to_be_bytes());
    } else if let Ok(w) = i32::try_from(i) {
        put(out, INT32, w.to_be_bytes());
    } else {
        put(out, INT64, i.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "serde")]
    fn a_str_is_its_header_then_its_bytes_at_every_length() {
        let text: String = "héllo, wörld: 0123456789abcdefghijklmnopqrstuvwxyz".repeat(2);
        for end in (0..=text.len()).filter(|&end| text.is_char_boundary(end)) {
            let piece = &text[..end];
            let len = u32::try_from(piece.len()).unwrap();
            // After bytes already written, so that the copies must land past them.
            let mut out = vec![0xee; 3];
            write_str(piece, len, &mut out);
            let mut expected = vec![0xee; 3];
            write_str_len(len, &mut expected);
            expected.extend_from_slice(piece.as_bytes());
            assert_eq!(out, expected, "{} bytes", piece.len());
        }
    }

    #[test]
    #[cfg(feature = "serde")]
    fn a_u8_is_written_as_write_uint_writes_it() {
        for b in 0..=u8::MAX {
            let (mut out, mut expected) = (vec![0xee], vec![0xee]);
            write_u8(b, &mut out);
            write_uint(u64::from(b), &mut expected);
            assert_eq!(out, expected, "{b}");
        }
    }

    #[test]
    fn a_uint_is_written_in_its_smallest_form_around_every_boundary() {
        for u in (0..=300).chain([
            u64::from(u16::MAX),
            1 << 16,
            u64::from(u32::MAX),
            1 << 32,
            u64::MAX,
        ]) {
            let mut out = vec![0xee];
            write_uint(u, &mut out);
            let mut cur = Cursor::new(&out[1..]);
            assert_eq!(Header::read(&mut cur).ok(), Some(Header::Uint(u)), "{u}");
            assert_eq!(cur.remaining(), 0, "{u}");
            let smallest = match u {
                0..=0x7f => 1,
                0x80..=0xff => 2,
                0x100..=0xffff => 3,
                0x1_0000..=0xffff_ffff => 5,
                _ => 9,
            };
            assert_eq!(out.len(), 1 + smallest, "{u}");
        }
    }

    #[test]
    fn the_scalar_and_leaf_tables_agree_with_the_header_reader_on_every_marker() {
        for marker in 0..=u8::MAX {
            let mut bytes = [b'a'; LEAF_ITEM_MAX];
            bytes[0] = marker;
            let mut cur = Cursor::new(&bytes);
            let header = Header::read(&mut cur);
            let header_len = cur.position();
            let expected = match header {
                Ok(Header::Str(n)) if marker & 0xe0 == FIXSTR => {
                    let n = u8::try_from(n).expect("a fixstr is short");
                    [1 + n, n]
                }
                Ok(
                    Header::Nil
                    | Header::Bool(_)
                    | Header::Uint(_)
                    | Header::Int(_)
                    | Header::F32(_)
                    | Header::F64(_),
                ) => [u8::try_from(header_len).expect("short"), 0],
                _ => [0, 0],
            };
            assert_eq!(leaf_item(marker), expected, "marker {marker:#04x}");
            let scalar_body = (expected[0] != 0 && expected[1] == 0 && marker & 0xe0 != FIXSTR)
                .then(|| expected[0] - 1);
            assert_eq!(
                plain_scalar_body(marker),
                scalar_body,
                "marker {marker:#04x}"
            );
            assert!(usize::from(expected[0]) <= LEAF_ITEM_MAX);
        }
    }

    /// The kinds a scalar header is of, as [`scalar_kinds`] bits (0 for any other header).
    fn kind_of(header: &Header) -> u8 {
        match header {
            Header::Nil => scalar_kinds::UNIT,
            Header::Bool(_) => scalar_kinds::BOOL,
            Header::Uint(_) | Header::Int(_) => scalar_kinds::INTEGER,
            Header::F32(_) | Header::F64(_) => scalar_kinds::FLOAT,
            _ => 0,
        }
    }

    fn peek_as<const KINDS: u8>(bytes: &[u8]) -> Option<(Header, usize)> {
        let cur = Cursor::new(bytes);
        let peeked = Header::peek_plain_scalar::<KINDS>(&cur);
        assert_eq!(cur.position(), 0, "a peek takes nothing");
        peeked
    }

    #[test]
    #[cfg(feature = "serde")]
    fn a_short_integer_peeks_as_a_plain_scalar_does_on_every_marker_and_every_cut() {
        fn short<const HOLDS_U8: bool, const HOLDS_NEGATIVE: bool>(
            bytes: &[u8],
        ) -> Option<(Result<u64, i64>, usize)> {
            Header::peek_short_integer::<HOLDS_U8, HOLDS_NEGATIVE>(&Cursor::new(bytes))
        }
        for marker in 0..=u8::MAX {
            for fill in [0x00, 0x5a, 0xa5, 0xff] {
                let mut whole = [fill; 3];
                whole[0] = marker;
                for cut in 0..=whole.len() {
                    let bytes = &whole[..cut];
                    // What the full peek says, kept to the forms the short one reads.
                    let expected =
                        |holds_u8: bool, holds_negative: bool| match Header::peek_plain_scalar::<
                            { scalar_kinds::INTEGER },
                        >(
                            &Cursor::new(bytes)
                        )? {
                            (Header::Uint(n), len) if marker < 0x80 || (holds_u8 && len == 2) => {
                                Some((Ok(n), len))
                            }
                            (Header::Int(n), 1) if holds_negative => Some((Err(n), 1)),
                            _ => None,
                        };
                    for (peeked, holds_u8, holds_negative) in [
                        (short::<false, false>(bytes), false, false),
                        (short::<true, false>(bytes), true, false),
                        (short::<false, true>(bytes), false, true),
                        (short::<true, true>(bytes), true, true),
                    ] {
                        assert_eq!(
                            peeked,
                            expected(holds_u8, holds_negative),
                            "marker {marker:#04x}, {cut} bytes, holds u8 {holds_u8}, \
                             holds negative {holds_negative}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_plain_scalar_peeks_as_the_header_reader_reads_it_on_every_marker_and_every_cut() {
        use scalar_kinds::{ALL, BOOL, FLOAT, INTEGER, UNIT};
        for marker in 0..=u8::MAX {
            let mut whole = [0x5a; 10];
            whole[0] = marker;
            // Bodies with the high bit set too: sign extension is part of the decoding.
            for fill in [0x5a, 0xa5] {
                whole[1..].fill(fill);
                for cut in 0..=whole.len() {
                    let bytes = &whole[..cut];
                    let mut cur = Cursor::new(bytes);
                    let read = Header::read(&mut cur).ok();
                    let expected = read
                        .filter(|h| kind_of(h) != 0)
                        .map(|h| (h, cur.position()));
                    let context = format!("marker {marker:#04x}, {cut} bytes");
                    assert_eq!(peek_as::<ALL>(bytes), expected, "{context}");
                    let only = |kinds: u8| expected.filter(|(h, _)| kind_of(h) & kinds != 0);
                    assert_eq!(peek_as::<UNIT>(bytes), only(UNIT), "{context}");
                    assert_eq!(peek_as::<BOOL>(bytes), only(BOOL), "{context}");
                    assert_eq!(peek_as::<INTEGER>(bytes), only(INTEGER), "{context}");
                    assert_eq!(peek_as::<FLOAT>(bytes), only(FLOAT), "{context}");
                }
            }
        }
    }

    #[test]
    #[cfg(feature = "serde")]
    fn a_short_str_or_bin_header_peeks_as_the_header_reader_reads_it_on_every_marker_and_every_cut()
    {
        for marker in 0..=u8::MAX {
            // A length byte with its high bits set: a fixstr's length is its marker's low bits.
            let whole = [marker, 0xc5, b'a'];
            for cut in 0..=whole.len() {
                let bytes = &whole[..cut];
                let mut cur = Cursor::new(bytes);
                let read = Header::read(&mut cur).ok();
                let short = matches!(marker, 0xa0..=0xbf | STR8 | BIN8);
                let expected = read.filter(|_| short).map(|h| (h, cur.position()));
                let cur = Cursor::new(bytes);
                assert_eq!(
                    Header::peek_short_body(&cur),
                    expected,
                    "marker {marker:#04x}, {cut} bytes"
                );
                assert_eq!(cur.position(), 0, "a peek takes nothing");
            }
        }
    }

    fn written(h: Header) -> Vec<u8> {
        let mut out = Vec::new();
        h.write(&mut out);
        out
    }

    fn read_back(bytes: &[u8]) -> Header {
        let mut cur = Cursor::new(bytes);
        let h = Header::read(&mut cur).expect("reads");
        assert_eq!(cur.remaining(), 0, "{bytes:02x?} read whole");
        h
    }

    #[test]
    fn every_written_header_reads_back_and_is_the_smallest_form() {
        let cases: &[(Header, &[u8])] = &[
            (Header::Nil, &[0xc0]),
            (Header::Bool(true), &[0xc3]),
            (Header::Uint(127), &[0x7f]),
            (Header::Uint(128), &[0xcc, 0x80]),
            (Header::Uint(256), &[0xcd, 0x01, 0x00]),
            (Header::Uint(65536), &[0xce, 0, 1, 0, 0]),
            (Header::Uint(1 << 32), &[0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
            (Header::Int(-32), &[0xe0]),
            (Header::Int(-33), &[0xd0, 0xdf]),
            (Header::Int(-129), &[0xd1, 0xff, 0x7f]),
            (Header::Int(-32769), &[0xd2, 0xff, 0xff, 0x7f, 0xff]),
            (Header::Str(31), &[0xbf]),
            (Header::Str(32), &[0xd9, 32]),
            (Header::Str(256), &[0xda, 1, 0]),
            (Header::Bin(0), &[0xc4, 0]),
            (Header::Bin(65536), &[0xc6, 0, 1, 0, 0]),
            (Header::Array(15), &[0x9f]),
            (Header::Array(16), &[0xdc, 0, 16]),
            (Header::Map(u32::MAX), &[0xdf, 0xff, 0xff, 0xff, 0xff]),
            (
                Header::Ext {
                    ext_type: 5,
                    len: 4,
                },
                &[0xd6, 5],
            ),
            (
                Header::Ext {
                    ext_type: -1,
                    len: 12,
                },
                &[0xc7, 12, 0xff],
            ),
            (
                Header::Ext {
                    ext_type: 1,
                    len: 300,
                },
                &[0xc8, 1, 44, 1],
            ),
        ];
        for &(header, bytes) in cases {
            assert_eq!(written(header), bytes, "{header:?}");
            // Non-negative ints read back as uint: the writer's smallest form.
            assert_eq!(read_back(bytes), header, "{bytes:02x?}");
        }
        assert_eq!(written(Header::Int(5)), [0x05]);
    }

    #[test]
    fn reserved_and_truncated_headers_are_errors() {
        assert_eq!(
            Header::read(&mut Cursor::new(&[0xc1])),
            Err(HeaderError::ReservedMarker)
        );
        assert_eq!(
            Header::read(&mut Cursor::new(&[0xdd, 0, 0])),
            Err(HeaderError::Incomplete(Incomplete { needed: 2 }))
        );
    }

    #[test]
    fn a_fix_form_takes_lengths_up_to_31() {
        assert_eq!(low_bits(0), 0);
        assert_eq!(low_bits(31), 31);
    }

    // No writer asks for a fix form past 31 (each checks its own fix limit first); the
    // guard makes a caller that did a broken invariant, not a marker of another kind.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "a fix-form length above 31")]
    fn a_fix_form_of_32_is_a_broken_invariant_in_a_debug_build() {
        low_bits(32);
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn a_fix_form_of_32_falls_back_to_0_in_a_release_build() {
        assert_eq!(low_bits(32), 0);
    }
}
