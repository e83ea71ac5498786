//! The encoder: the smallest encoding of every value, written straight into the caller's
//! buffer by one walk over the value (no recursion); headers go through the wire layer.

use crate::error::{EncodeError, LengthOf};
use crate::timestamp::TIMESTAMP_EXT_TYPE;
use crate::value::walk::{Event, Root, Token, Walk};
use crate::value::Value;
use crate::wire::header::Header;

/// Encodes `value` into a new buffer.
///
/// ```
/// use hardpack::{encode, Value};
/// let v = Value::from_iter([("a", Value::from(-1))]);
/// assert_eq!(encode(&v)?, [0x81, 0xa1, b'a', 0xff]);
/// # Ok::<(), hardpack::EncodeError>(())
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
    for event in Walk::new(Root::Value(value)) {
        if let Event::Enter(_, token) = event {
            write_token(token, out)?;
        }
    }
    Ok(())
}

fn wire_len(of: LengthOf, len: usize) -> Result<u32, EncodeError> {
    u32::try_from(len).map_err(|_| EncodeError::too_long(of, len))
}

#[inline(always)]
fn write_token(token: Token<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let (header, body): (Header, &[u8]) = match token {
        Token::Nil => (Header::Nil, &[]),
        Token::Bool(b) => (Header::Bool(b), &[]),
        Token::Integer(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => (Header::Uint(u), &[]),
            (None, Some(i)) => (Header::Int(i), &[]),
            (None, None) => {
                crate::invariant::broken("an integer that is neither u64 nor i64");
                (Header::Nil, &[])
            }
        },
        Token::F32(x) => (Header::F32(x), &[]),
        Token::F64(x) => (Header::F64(x), &[]),
        Token::Str(s) => {
            let text = s.as_bytes();
            (Header::Str(wire_len(LengthOf::Str, text.len())?), text)
        }
        Token::Bin(b) => (Header::Bin(wire_len(LengthOf::Bin, b.len())?), b),
        Token::Ext(ext_type, payload) => {
            let len = wire_len(LengthOf::Ext, payload.len())?;
            (Header::Ext { ext_type, len }, payload)
        }
        Token::Timestamp(ts) => {
            let (buf, len) = ts.to_ext_payload();
            let header = Header::Ext {
                ext_type: TIMESTAMP_EXT_TYPE,
                len: wire_len(LengthOf::Ext, len)?,
            };
            header.write(out);
            out.extend_from_slice(buf.get(..len).unwrap_or(&buf));
            return Ok(());
        }
        Token::Array(n) => (Header::Array(wire_len(LengthOf::Array, n)?), &[]),
        Token::Map(n) => (Header::Map(wire_len(LengthOf::Map, n)?), &[]),
    };
    header.write(out);
    out.extend_from_slice(body);
    Ok(())
}
