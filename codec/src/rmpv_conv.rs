//! Conversion to and from `rmpv::Value` (feature `rmpv`), without recursion on either side.
//! Dropping a deep `rmpv::Value` still recurses inside rmpv: keep those shallow.

use crate::error::{Error, ErrorKind};
use crate::invariant;
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::walk::{Event, Root, Text, Token, Walk};
use crate::value::{Integer, Value, ValueBuilder};

/// Converts a hardpack value to an `rmpv::Value`. A timestamp becomes `Ext(-1, payload)`.
pub fn to_rmpv(value: &Value) -> rmpv::Value {
    // The children built so far of each container entered and not yet left.
    let mut open: Vec<Vec<rmpv::Value>> = Vec::new();
    for event in Walk::new(Root::Value(value)) {
        let built = match event {
            Event::Enter(_, token) => match token {
                Token::Nil => rmpv::Value::Nil,
                Token::Bool(b) => rmpv::Value::Boolean(b),
                Token::Integer(n) => match (n.as_u64(), n.as_i64()) {
                    (Some(u), _) => rmpv::Value::from(u),
                    (None, Some(i)) => rmpv::Value::from(i),
                    (None, None) => {
                        invariant::broken("an integer that is neither u64 nor i64");
                        rmpv::Value::Nil
                    }
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
                Token::Array(n) => {
                    open.push(Vec::with_capacity(n));
                    continue;
                }
                Token::Map(n) => {
                    open.push(Vec::with_capacity(n.saturating_mul(2)));
                    continue;
                }
            },
            Event::Leave(kind) => {
                let children = open.pop().unwrap_or_default();
                match kind {
                    crate::value::walk::Container::Array => rmpv::Value::Array(children),
                    crate::value::walk::Container::Map => {
                        let mut entries = Vec::with_capacity(children.len() / 2);
                        let mut it = children.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            entries.push((k, v));
                        }
                        rmpv::Value::Map(entries)
                    }
                }
            }
        };
        match open.last_mut() {
            Some(children) => children.push(built),
            None => return built,
        }
    }
    invariant::broken("a walk that did not close the value it opened");
    rmpv::Value::Nil
}

enum RmpvFrame<'a> {
    Items(core::slice::Iter<'a, rmpv::Value>),
    Entries(
        core::slice::Iter<'a, (rmpv::Value, rmpv::Value)>,
        Option<&'a rmpv::Value>,
    ),
}

/// Converts an `rmpv::Value` to a hardpack value, as decoding its encoding would: a str that
/// is not UTF-8 or an ext -1 that is not a valid timestamp is an error, whose depth is where
/// that value sits (an rmpv value has no bytes, so the offset is 0).
pub fn from_rmpv(value: &rmpv::Value) -> Result<Value, Error> {
    let mut builder = ValueBuilder::new();
    let mut stack: Vec<RmpvFrame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        let Some(v) = next.take() else {
            let following = match stack.last_mut() {
                None => {
                    invariant::broken("an rmpv walk that did not close the value it opened");
                    return Ok(Value::Nil);
                }
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
        let at = |kind| Error::new(kind, 0, builder.depth());
        let token = match v {
            rmpv::Value::Nil => Token::Nil,
            rmpv::Value::Boolean(b) => Token::Bool(*b),
            rmpv::Value::Integer(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Token::Integer(Integer::from(u)),
                (None, Some(i)) => Token::Integer(Integer::from(i)),
                (None, None) => {
                    invariant::broken("an rmpv integer that is neither u64 nor i64");
                    Token::Nil
                }
            },
            rmpv::Value::F32(x) => Token::F32(*x),
            rmpv::Value::F64(x) => Token::F64(*x),
            rmpv::Value::String(s) => match s.as_str() {
                Some(s) => Token::Str(Text::Borrowed(s)),
                None => {
                    let valid_up_to = core::str::from_utf8(s.as_bytes())
                        .err()
                        .map_or(0, |e| e.valid_up_to());
                    return Err(at(ErrorKind::InvalidUtf8 { valid_up_to }));
                }
            },
            rmpv::Value::Binary(b) => Token::Bin(b),
            rmpv::Value::Ext(TIMESTAMP_EXT_TYPE, payload) => Token::Timestamp(
                Timestamp::from_ext_payload(payload)
                    .map_err(|e| at(ErrorKind::InvalidTimestamp(e)))?,
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
        if let Some(done) = builder.push_token(token) {
            return Ok(done);
        }
    }
}
