//! [`Token`]: one item of MessagePack as it is on the wire, its payload borrowed, as the
//! [`TokenReader`](crate::decode::TokenReader) yields it and a [`ValueRef`](crate::ValueRef) keeps it.

use crate::prelude::*;

use crate::timestamp::Timestamp;
use crate::value::walk::{self, Text};
use crate::value::{Integer, Value};

/// One item of MessagePack as the [`TokenReader`](crate::decode::TokenReader) reads it: a scalar with its payload
/// borrowed from the input, or the start of an array or map with its count (elements for an
/// array, key-value pairs for a map), whose children are the tokens that follow.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Token<'a> {
    /// nil.
    Nil,
    /// true or false.
    Bool(bool),
    /// Any integer format.
    Integer(Integer),
    /// A float 32.
    F32(f32),
    /// A float 64.
    F64(f64),
    /// A str, checked to be UTF-8.
    Str(&'a str),
    /// A bin.
    Bin(&'a [u8]),
    /// An ext other than a timestamp: its type and data.
    Ext(i8, &'a [u8]),
    /// An ext -1 holding a valid timestamp.
    Timestamp(Timestamp),
    /// An array of this many elements starts; they follow.
    Array(u32),
    /// A map of this many key-value pairs starts; its keys and values follow, alternating.
    Map(u32),
}

impl PartialEq for Token<'_> {
    /// As for [`Value`]: floats compare by their bits, so a NaN equals itself.
    fn eq(&self, other: &Self) -> bool {
        self.as_walk_token() == other.as_walk_token()
    }
}

impl Eq for Token<'_> {}

impl<'a> Token<'a> {
    /// Appends the token's smallest encoding (a header, and the payload for str, bin and
    /// ext). Writing every token a reader yields, in order, writes the canonical encoding of
    /// what was read.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        // Every length here came from the wire (a u32), so the writer cannot refuse it.
        if crate::encode::write_token(self.as_walk_token(), out).is_err() {
            crate::invariant::broken("a token read from the wire that cannot be written back");
        }
    }

    /// The same token in the form the tree walks use.
    pub(crate) fn as_walk_token(&self) -> walk::Token<'a> {
        match *self {
            Token::Nil => walk::Token::Nil,
            Token::Bool(b) => walk::Token::Bool(b),
            Token::Integer(n) => walk::Token::Integer(n),
            Token::F32(x) => walk::Token::F32(x),
            Token::F64(x) => walk::Token::F64(x),
            Token::Str(s) => walk::Token::Str(Text::Borrowed(s)),
            Token::Bin(b) => walk::Token::Bin(b),
            Token::Ext(t, d) => walk::Token::Ext(t, d),
            Token::Timestamp(ts) => walk::Token::Timestamp(ts),
            Token::Array(n) => walk::Token::Array(wide(n)),
            Token::Map(n) => walk::Token::Map(wide(n)),
        }
    }

    /// The token of a scalar that owns no heap (what the reader hands every sink as a
    /// [`Value`]).
    #[inline(always)]
    pub(crate) fn from_scalar(value: &Value) -> Token<'a> {
        match *value {
            Value::Bool(b) => Token::Bool(b),
            Value::Integer(n) => Token::Integer(n),
            Value::F32(x) => Token::F32(x),
            Value::F64(x) => Token::F64(x),
            Value::Timestamp(ts) => Token::Timestamp(ts),
            Value::Nil => Token::Nil,
            _ => {
                crate::invariant::broken("a scalar token that owns heap");
                Token::Nil
            }
        }
    }
}

/// A u32 as usize: lossless on the 32- and 64-bit targets this crate supports.
pub(crate) fn wide(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A wire length as u32: every length the reader hands a sink came from a u32.
pub(crate) fn narrow(len: usize) -> u32 {
    u32::try_from(len).unwrap_or_else(|_| {
        crate::invariant::broken("a wire length over u32::MAX");
        u32::MAX
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Ext;

    #[test]
    fn tokens_are_equal_only_with_the_same_kind_and_payload() {
        let nan = f64::from_bits(0x7ff8_0000_0000_0001);
        let tokens = [
            Token::Nil,
            Token::Bool(false),
            Token::Bool(true),
            Token::Integer(Integer::from(1u8)),
            Token::Integer(Integer::from(-1i8)),
            Token::F32(1.0),
            Token::F64(1.0),
            Token::F64(nan),
            Token::Str("a"),
            Token::Str("b"),
            Token::Bin(b"a"),
            Token::Ext(1, b"a"),
            Token::Ext(1, b"b"),
            Token::Ext(2, b"a"),
            Token::Array(1),
            Token::Array(2),
            Token::Map(1),
        ];
        for (i, a) in tokens.iter().enumerate() {
            for (j, b) in tokens.iter().enumerate() {
                assert_eq!(a == b, i == j, "{a:?} == {b:?}");
            }
        }
        assert_eq!(
            Token::F64(nan),
            Token::F64(nan),
            "floats compare by their bits"
        );
    }

    #[test]
    fn ext_values_differing_in_type_or_data_alone_are_unequal() {
        let ext = |t, d: &[u8]| Value::from(Ext::new(t, d));
        assert_eq!(ext(1, b"a"), ext(1, b"a"));
        assert_ne!(ext(1, b"a"), ext(1, b"b"));
        assert_ne!(ext(1, b"a"), ext(2, b"a"));
    }
}
