//! `Debug` and `Display` for values, written from one walk (no recursion): `Debug` in a
//! Rust-like notation that keeps every distinction (`1.5f32`, `nil`, `b"..."`), `Display` as
//! JSON wherever JSON can say it.

use core::fmt::{self, Write};

use crate::value::walk::{Container, Event, Root, Slot, Token, Walk};
use crate::value::{Array, IntRepr, Integer, Map, Value};

/// The two notations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Notation {
    Debug,
    Display,
}

fn write_walk<'a>(
    walk: impl Iterator<Item = Event<'a>>,
    notation: Notation,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    for event in walk {
        let token = match event {
            Event::Enter(slot, token) => {
                f.write_str(match slot {
                    Slot::Root | Slot::Element { first: true } | Slot::Key { first: true } => "",
                    Slot::Element { first: false } | Slot::Key { first: false } => ", ",
                    Slot::MapValue => ": ",
                })?;
                token
            }
            Event::Leave(Container::Array) => {
                f.write_str("]")?;
                continue;
            }
            Event::Leave(Container::Map) => {
                f.write_str("}")?;
                continue;
            }
        };
        match (token, notation) {
            (Token::Nil, Notation::Debug) => f.write_str("nil")?,
            (Token::Nil, Notation::Display) => f.write_str("null")?,
            (Token::Bool(b), _) => write!(f, "{b}")?,
            (Token::Integer(n), _) => write!(f, "{n}")?,
            (Token::F32(x), Notation::Debug) => write!(f, "{x:?}f32")?,
            (Token::F64(x), Notation::Debug) => write!(f, "{x:?}")?,
            (Token::F32(x), Notation::Display) => write!(f, "{x}")?,
            (Token::F64(x), Notation::Display) => write!(f, "{x}")?,
            (Token::Str(s), Notation::Debug) => write!(f, "{:?}", s.as_str())?,
            (Token::Str(s), Notation::Display) => write_json_string(s.as_str(), f)?,
            (Token::Bin(b), _) => write!(f, "b\"{}\"", b.escape_ascii())?,
            (Token::Ext(t, b), _) => write!(f, "ext({t}, b\"{}\")", b.escape_ascii())?,
            (Token::Timestamp(ts), _) => write!(f, "ts({}, {})", ts.seconds(), ts.nanoseconds())?,
            (Token::Array(_), _) => f.write_str("[")?,
            (Token::Map(_), _) => f.write_str("{")?,
        }
    }
    Ok(())
}

/// `Debug` of what a walk meets (for trees other than `Value`'s).
pub(crate) fn write_debug<'a>(
    events: impl Iterator<Item = Event<'a>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    write_walk(events, Notation::Debug, f)
}

/// `Display` of what a walk meets (for trees other than `Value`'s).
pub(crate) fn write_display<'a>(
    events: impl Iterator<Item = Event<'a>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    write_walk(events, Notation::Display, f)
}

/// A JSON string literal: `"`, `\` and control characters escaped.
fn write_json_string(s: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if u32::from(c) < 0x20 => write!(f, "\\u{:04x}", u32::from(c))?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

impl fmt::Debug for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IntRepr::Negative(n) => write!(f, "{n}"),
            IntRepr::NonNegative(n) => write!(f, "{n}"),
        }
    }
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl fmt::Debug for Value {
    /// A compact notation that keeps every distinction:
    /// `[1, -2, "s", {nil: true}, 1.5f32, 2.5, b"\x00", ext(5, b""), ts(1, 0)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_walk(Walk::new(Root::Value(self)), Notation::Debug, f)
    }
}

impl fmt::Display for Value {
    /// JSON where JSON can say it: `null`, `true`, numbers, strings with JSON escapes,
    /// arrays and maps (keys of any type, as MessagePack allows). Bin, ext and timestamp
    /// values, which JSON has no notation for, print as in `Debug`, as do non-finite floats.
    ///
    /// ```
    /// use hardpack::Value;
    ///
    /// let v = Value::from_iter([("name", Value::from("Zoë \"z\"")), ("n", Value::from(-1))]);
    /// assert_eq!(v.to_string(), r#"{"name": "Zoë \"z\"", "n": -1}"#);
    /// assert_eq!(Value::from(vec![Value::Nil, Value::from(1.5)]).to_string(), "[null, 1.5]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_walk(Walk::new(Root::Value(self)), Notation::Display, f)
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_walk(Walk::new(Root::Items(&self.0)), Notation::Debug, f)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_walk(Walk::new(Root::Entries(&self.0)), Notation::Debug, f)
    }
}

#[cfg(test)]
mod tests {
    use crate::timestamp::Timestamp;
    use crate::value::{Ext, Value};

    fn sample() -> Value {
        Value::from(vec![
            Value::from(1u8),
            Value::from(-2),
            Value::from("s\n"),
            Value::from(vec![(Value::Nil, Value::Bool(true))]),
            Value::F32(1.5),
            Value::F64(2.5),
            Value::Bin(Box::new([0u8])),
            Value::Ext(Ext::new(5, b"")),
            Value::Timestamp(Timestamp::new(1, 0).unwrap()),
            Value::from(Vec::<Value>::new()),
            Value::from(Vec::<(Value, Value)>::new()),
        ])
    }

    #[test]
    fn debug_keeps_every_distinction() {
        assert_eq!(
            format!("{:?}", sample()),
            r#"[1, -2, "s\n", {nil: true}, 1.5f32, 2.5, b"\x00", ext(5, b""), ts(1, 0), [], {}]"#
        );
    }

    #[test]
    fn arrays_and_maps_debug_print_as_their_value_does() {
        let Value::Array(items) = sample() else {
            panic!("an array");
        };
        assert_eq!(format!("{items:?}"), format!("{:?}", sample()));
        let map = Value::from_iter([("k", Value::from(vec![Value::Nil]))]);
        let Value::Map(entries) = &map else {
            panic!("a map");
        };
        assert_eq!(format!("{entries:?}"), r#"{"k": [nil]}"#);
    }

    #[test]
    fn display_is_json_where_json_can_say_it() {
        assert_eq!(
            sample().to_string(),
            r#"[1, -2, "s\n", {null: true}, 1.5, 2.5, b"\x00", ext(5, b""), ts(1, 0), [], {}]"#
        );
        assert_eq!(Value::from("\u{1}\"\\").to_string(), r#""\u0001\"\\""#);
    }
}
