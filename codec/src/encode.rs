//! The encoder: the smallest encoding of every value, written straight into the caller's
//! buffer, walking the value without recursion.

use crate::error::EncodeError;
use crate::timestamp::TIMESTAMP_EXT_TYPE;
use crate::traverse::{Root, Token, Tokens};
use crate::value::{Integer, Value};

/// Encodes `value` into a new buffer.
pub fn encode(value: &Value) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`. On error `out` may hold part of the encoding.
///
/// The only error is a str, bin, ext, array or map longer than 4,294,967,295, which
/// MessagePack cannot express; decoded values never are.
pub fn encode_into(value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    for token in Tokens::new(Root::Value(value)) {
        write_token(token, out)?;
    }
    Ok(())
}

fn wire_len(what: &'static str, len: usize) -> Result<u32, EncodeError> {
    u32::try_from(len).map_err(|_| EncodeError::too_long(what, len))
}

/// Writes a length header: the fix form when `len` fits under `fix_limit`, else the 8-, 16-
/// or 32-bit form (`marker8` is `None` for arrays and maps, which have no 8-bit form).
fn write_len(out: &mut Vec<u8>, len: u32, fix: Option<(u8, u32)>, markers: [Option<u8>; 3]) {
    let [m8, m16, m32] = markers;
    match (fix, m8) {
        (Some((base, limit)), _) if len < limit => {
            // len < limit <= 32 here, so it fits the marker's low bits.
            out.push(base | u8::try_from(len).unwrap_or(0));
        }
        (_, Some(m8)) if len <= u32::from(u8::MAX) => {
            out.push(m8);
            out.push(u8::try_from(len).unwrap_or(u8::MAX));
        }
        _ => match (u16::try_from(len), m16, m32) {
            (Ok(l16), Some(m16), _) => {
                out.push(m16);
                out.extend_from_slice(&l16.to_be_bytes());
            }
            (_, _, Some(m32)) => {
                out.push(m32);
                out.extend_from_slice(&len.to_be_bytes());
            }
            _ => {}
        },
    }
}

fn write_integer(n: Integer, out: &mut Vec<u8>) {
    if let Some(u) = n.as_u64() {
        if let Ok(b) = u8::try_from(u) {
            if b < 0x80 {
                out.push(b);
            } else {
                out.extend_from_slice(&[0xcc, b]);
            }
        } else if let Ok(w) = u16::try_from(u) {
            out.push(0xcd);
            out.extend_from_slice(&w.to_be_bytes());
        } else if let Ok(w) = u32::try_from(u) {
            out.push(0xce);
            out.extend_from_slice(&w.to_be_bytes());
        } else {
            out.push(0xcf);
            out.extend_from_slice(&u.to_be_bytes());
        }
    } else if let Some(i) = n.as_i64() {
        if let Ok(b) = i8::try_from(i) {
            if b >= -32 {
                out.extend_from_slice(&b.to_be_bytes());
            } else {
                out.push(0xd0);
                out.extend_from_slice(&b.to_be_bytes());
            }
        } else if let Ok(w) = i16::try_from(i) {
            out.push(0xd1);
            out.extend_from_slice(&w.to_be_bytes());
        } else if let Ok(w) = i32::try_from(i) {
            out.push(0xd2);
            out.extend_from_slice(&w.to_be_bytes());
        } else {
            out.push(0xd3);
            out.extend_from_slice(&i.to_be_bytes());
        }
    }
}

fn write_ext(ext_type: i8, payload: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let len = wire_len("ext", payload.len())?;
    let fixext = match len {
        1 => Some(0xd4),
        2 => Some(0xd5),
        4 => Some(0xd6),
        8 => Some(0xd7),
        16 => Some(0xd8),
        _ => None,
    };
    match fixext {
        Some(marker) => out.push(marker),
        None => write_len(out, len, None, [Some(0xc7), Some(0xc8), Some(0xc9)]),
    }
    out.extend_from_slice(&ext_type.to_be_bytes());
    out.extend_from_slice(payload);
    Ok(())
}

fn write_token(token: Token<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match token {
        Token::Nil => out.push(0xc0),
        Token::Bool(false) => out.push(0xc2),
        Token::Bool(true) => out.push(0xc3),
        Token::Integer(n) => write_integer(n, out),
        Token::F32(x) => {
            out.push(0xca);
            out.extend_from_slice(&x.to_be_bytes());
        }
        Token::F64(x) => {
            out.push(0xcb);
            out.extend_from_slice(&x.to_be_bytes());
        }
        Token::Str(s) => {
            let text = s.as_bytes();
            let len = wire_len("str", text.len())?;
            write_len(
                out,
                len,
                Some((0xa0, 32)),
                [Some(0xd9), Some(0xda), Some(0xdb)],
            );
            out.extend_from_slice(text);
        }
        Token::Bin(b) => {
            let len = wire_len("bin", b.len())?;
            write_len(out, len, None, [Some(0xc4), Some(0xc5), Some(0xc6)]);
            out.extend_from_slice(b);
        }
        Token::Ext(t, payload) => write_ext(t, payload, out)?,
        Token::Timestamp(ts) => {
            let (buf, len) = ts.to_ext_payload();
            write_ext(TIMESTAMP_EXT_TYPE, buf.get(..len).unwrap_or(&buf), out)?;
        }
        Token::Array(n) => {
            let len = wire_len("array", n)?;
            write_len(out, len, Some((0x90, 16)), [None, Some(0xdc), Some(0xdd)]);
        }
        Token::Map(n) => {
            let len = wire_len("map", n)?;
            write_len(out, len, Some((0x80, 16)), [None, Some(0xde), Some(0xdf)]);
        }
    }
    Ok(())
}
