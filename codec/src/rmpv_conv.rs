//! Conversion to and from `rmpv::Value` (feature `rmpv`), without recursion on either side.
//! Dropping a deep `rmpv::Value` still recurses inside rmpv: keep those shallow.

use crate::build::Builder;
use crate::error::ErrorKind;
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::traverse::{Root, Text, Token, Tokens};
use crate::value::{Integer, Value};

/// Converts a hardpack value to an `rmpv::Value`. A timestamp becomes `Ext(-1, payload)`.
pub fn to_rmpv(value: &Value) -> rmpv::Value {
    // Each open container: its kind, the children still to come, and those already built.
    let mut open: Vec<(bool, usize, Vec<rmpv::Value>)> = Vec::new();
    for token in Tokens::new(Root::Value(value)) {
        let mut built = match token {
            Token::Nil => rmpv::Value::Nil,
            Token::Bool(b) => rmpv::Value::Boolean(b),
            Token::Integer(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => rmpv::Value::from(u),
                (None, Some(i)) => rmpv::Value::from(i),
                (None, None) => rmpv::Value::Nil,
            },
            Token::F32(x) => rmpv::Value::F32(x),
            Token::F64(x) => rmpv::Value::F64(x),
            Token::Str(s) => rmpv::Value::from(s.as_str()),
            Token::Bin(b) => rmpv::Value::Binary(b.to_vec()),
            Token::Ext(t, b) => rmpv::Value::Ext(t, b.to_vec()),
            Token::Timestamp(ts) => {
                let (buf, len) = ts.to_ext_payload();
                rmpv::Value::Ext(TIMESTAMP_EXT_TYPE, buf.get(..len).unwrap_or(&buf).to_vec())
            }
            Token::Array(0) => rmpv::Value::Array(Vec::new()),
            Token::Map(0) => rmpv::Value::Map(Vec::new()),
            Token::Array(n) => {
                open.push((false, n, Vec::with_capacity(n)));
                continue;
            }
            Token::Map(n) => {
                let children = n.saturating_mul(2);
                open.push((true, children, Vec::with_capacity(children)));
                continue;
            }
        };
        loop {
            let Some((is_map, left, children)) = open.last_mut() else {
                return built;
            };
            children.push(built);
            *left = left.saturating_sub(1);
            if *left > 0 {
                break;
            }
            let is_map = *is_map;
            let Some((_, _, children)) = open.pop() else {
                break;
            };
            built = if is_map {
                let mut entries = Vec::with_capacity(children.len() / 2);
                let mut it = children.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    entries.push((k, v));
                }
                rmpv::Value::Map(entries)
            } else {
                rmpv::Value::Array(children)
            };
        }
    }
    rmpv::Value::Nil
}

enum RmpvFrame<'a> {
    Items(std::slice::Iter<'a, rmpv::Value>),
    Entries(
        std::slice::Iter<'a, (rmpv::Value, rmpv::Value)>,
        Option<&'a rmpv::Value>,
    ),
}

/// Converts an `rmpv::Value` to a hardpack value, as decoding its encoding would: a str that
/// is not UTF-8 or an ext -1 that is not a valid timestamp is an error.
pub fn from_rmpv(value: &rmpv::Value) -> Result<Value, ErrorKind> {
    let mut builder = Builder::unbounded();
    let mut stack: Vec<RmpvFrame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        let Some(v) = next.take() else {
            let following = match stack.last_mut() {
                None => return Ok(Value::Nil),
                Some(RmpvFrame::Items(it)) => it.next(),
                Some(RmpvFrame::Entries(it, pending)) => match pending.take() {
                    Some(v) => Some(v),
                    None => it.next().map(|(k, v)| {
                        *pending = Some(v);
                        k
                    }),
                },
            };
            if following.is_none() {
                stack.pop();
            }
            next = following;
            continue;
        };
        let token = match v {
            rmpv::Value::Nil => Token::Nil,
            rmpv::Value::Boolean(b) => Token::Bool(*b),
            rmpv::Value::Integer(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Token::Integer(Integer::from(u)),
                (None, Some(i)) => Token::Integer(Integer::from(i)),
                (None, None) => Token::Nil,
            },
            rmpv::Value::F32(x) => Token::F32(*x),
            rmpv::Value::F64(x) => Token::F64(*x),
            rmpv::Value::String(s) => match s.as_str() {
                Some(s) => Token::Str(Text::Borrowed(s)),
                None => {
                    let valid_up_to = std::str::from_utf8(s.as_bytes())
                        .err()
                        .map_or(0, |e| e.valid_up_to());
                    return Err(ErrorKind::InvalidUtf8 { valid_up_to });
                }
            },
            rmpv::Value::Binary(b) => Token::Bin(b),
            rmpv::Value::Ext(TIMESTAMP_EXT_TYPE, payload) => Token::Timestamp(
                Timestamp::from_ext_payload(payload).map_err(ErrorKind::InvalidTimestamp)?,
            ),
            rmpv::Value::Ext(t, payload) => Token::Ext(*t, payload),
            rmpv::Value::Array(items) => {
                if !items.is_empty() {
                    stack.push(RmpvFrame::Items(items.iter()));
                }
                Token::Array(items.len())
            }
            rmpv::Value::Map(entries) => {
                if !entries.is_empty() {
                    stack.push(RmpvFrame::Entries(entries.iter(), None));
                }
                Token::Map(entries.len())
            }
        };
        if let Some(done) = builder.push_token(token)? {
            return Ok(done);
        }
    }
}
