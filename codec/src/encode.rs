//! The encoder: the smallest encoding of every value, written straight into the caller's
//! buffer by one walk over the value (no recursion); headers go through the wire layer.

use crate::error::{wire_len, EncodeError, LengthOf};
use crate::prelude::*;
use crate::timestamp::TIMESTAMP_EXT_TYPE;
use crate::value::walk::{Event, Root, Token, Walk};
use crate::value::Value;
use crate::wire::header;

/// Encodes `value` into a new buffer.
///
/// ```
/// use hardpack::{encode, Value};
/// let v = Value::from_iter([("a", Value::from(-1))]);
/// assert_eq!(encode(&v)?, [0x81, 0xa1, b'a', 0xff]);
/// # Ok::<(), hardpack::error::EncodeError>(())
/// ```
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
    write_events(Walk::new(Root::Value(value)), out)
}

/// Appends the encoding of what a walk meets.
#[inline]
pub(crate) fn write_events<'a>(
    events: impl Iterator<Item = Event<'a>>,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    for event in events {
        if let Event::Enter(_, token) = event {
            write_token(token, out)?;
        }
    }
    Ok(())
}

#[inline(always)]
pub(crate) fn write_token(token: Token<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match token {
        Token::Nil => header::write_nil(out),
        Token::Bool(b) => header::write_bool(b, out),
        Token::Integer(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => header::write_uint(u, out),
            (None, Some(i)) => header::write_negative(i, out),
            (None, None) => crate::invariant::broken("an integer that is neither u64 nor i64"),
        },
        Token::F32(x) => header::write_f32(x, out),
        Token::F64(x) => header::write_f64(x, out),
        Token::Str(s) => {
            let text = s.as_bytes();
            header::write_str_len(wire_len(LengthOf::Str, text.len())?, out);
            out.extend_from_slice(text);
        }
        Token::Bin(b) => {
            header::write_bin_len(wire_len(LengthOf::Bin, b.len())?, out);
            out.extend_from_slice(b);
        }
        Token::Ext(ext_type, payload) => {
            let len = wire_len(LengthOf::Ext, payload.len())?;
            header::write_ext_header(ext_type, len, out);
            out.extend_from_slice(payload);
        }
        Token::Timestamp(ts) => {
            let (buf, len) = ts.to_ext_payload();
            let payload = crate::invariant::expect_or(buf.get(..len), &buf, "timestamp length");
            header::write_ext_header(TIMESTAMP_EXT_TYPE, wire_len(LengthOf::Ext, len)?, out);
            out.extend_from_slice(payload);
        }
        Token::Array(n) => header::write_array_len(wire_len(LengthOf::Array, n)?, out),
        Token::Map(n) => header::write_map_len(wire_len(LengthOf::Map, n)?, out),
    }
    Ok(())
}
