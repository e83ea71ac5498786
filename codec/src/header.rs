//! The marker layer: reads one MessagePack header (marker byte plus its fixed-size fields)
//! without reading bodies and without allocating.
//!
//! ```text
//! 0x00-0x7f positive fixint   0x80-0x8f fixmap    0x90-0x9f fixarray  0xa0-0xbf fixstr
//! 0xc0 nil  0xc1 (reserved)   0xc2/0xc3 false/true
//! 0xc4-0xc6 bin 8/16/32       0xc7-0xc9 ext 8/16/32     0xca/0xcb float 32/64
//! 0xcc-0xcf uint 8..64        0xd0-0xd3 int 8..64       0xd4-0xd8 fixext 1/2/4/8/16
//! 0xd9-0xdb str 8/16/32       0xdc/0xdd array 16/32     0xde/0xdf map 16/32
//! 0xe0-0xff negative fixint
//! ```

use crate::cursor::{Cursor, Incomplete};

/// One header: a scalar complete in itself, or the length of a body or container that follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Header {
    /// nil
    Nil,
    /// true or false
    Bool(bool),
    /// A positive fixint or uint 8/16/32/64.
    Uint(u64),
    /// A negative fixint or int 8/16/32/64 (which may hold a non-negative value).
    Int(i64),
    /// float 32
    F32(f32),
    /// float 64
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
        /// The extension type.
        ext_type: i8,
        /// Payload length.
        len: u32,
    },
}

/// Why a header could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
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

impl Header {
    /// Reads one header. On error the cursor may have advanced partway.
    #[inline]
    pub fn read(cur: &mut Cursor<'_>) -> Result<Header, HeaderError> {
        let marker = cur.take_u8()?;
        let header = match marker {
            0x00..=0x7f => Header::Uint(u64::from(marker)),
            0x80..=0x8f => Header::Map(u32::from(marker & 0x0f)),
            0x90..=0x9f => Header::Array(u32::from(marker & 0x0f)),
            0xa0..=0xbf => Header::Str(u32::from(marker & 0x1f)),
            0xc0 => Header::Nil,
            0xc1 => return Err(HeaderError::ReservedMarker),
            0xc2 => Header::Bool(false),
            0xc3 => Header::Bool(true),
            0xc4 => Header::Bin(len8(cur)?),
            0xc5 => Header::Bin(len16(cur)?),
            0xc6 => Header::Bin(len32(cur)?),
            0xc7 => {
                let len = len8(cur)?;
                ext(cur, len)?
            }
            0xc8 => {
                let len = len16(cur)?;
                ext(cur, len)?
            }
            0xc9 => {
                let len = len32(cur)?;
                ext(cur, len)?
            }
            0xca => Header::F32(f32::from_be_bytes(cur.take_array()?)),
            0xcb => Header::F64(f64::from_be_bytes(cur.take_array()?)),
            0xcc => Header::Uint(u64::from(cur.take_u8()?)),
            0xcd => Header::Uint(u64::from(u16::from_be_bytes(cur.take_array()?))),
            0xce => Header::Uint(u64::from(u32::from_be_bytes(cur.take_array()?))),
            0xcf => Header::Uint(u64::from_be_bytes(cur.take_array()?)),
            0xd0 => Header::Int(i64::from(i8::from_be_bytes(cur.take_array()?))),
            0xd1 => Header::Int(i64::from(i16::from_be_bytes(cur.take_array()?))),
            0xd2 => Header::Int(i64::from(i32::from_be_bytes(cur.take_array()?))),
            0xd3 => Header::Int(i64::from_be_bytes(cur.take_array()?)),
            0xd4 => ext(cur, 1)?,
            0xd5 => ext(cur, 2)?,
            0xd6 => ext(cur, 4)?,
            0xd7 => ext(cur, 8)?,
            0xd8 => ext(cur, 16)?,
            0xd9 => Header::Str(len8(cur)?),
            0xda => Header::Str(len16(cur)?),
            0xdb => Header::Str(len32(cur)?),
            0xdc => Header::Array(len16(cur)?),
            0xdd => Header::Array(len32(cur)?),
            0xde => Header::Map(len16(cur)?),
            0xdf => Header::Map(len32(cur)?),
            0xe0..=0xff => Header::Int(i64::from(i8::from_be_bytes([marker]))),
        };
        Ok(header)
    }
}
