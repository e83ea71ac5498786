//! Reading values: typed accessors, `is_*` tests, indexing by key or position (a shared nil
//! when absent, as serde_json does), and `TryFrom<&Value>` for Rust scalars.
//!
//! ```
//! use hardpack::{decode, Value};
//!
//! // {"user": {"id": 7, "tags": ["a"]}}
//! let doc = decode(b"\x81\xa4user\x82\xa2id\x07\xa4tags\x91\xa1a")?;
//! assert_eq!(doc["user"]["id"].as_u64(), Some(7));
//! assert_eq!(doc["user"]["tags"][0].as_str(), Some("a"));
//! assert!(doc["user"]["missing"][3].is_nil()); // absent: a shared nil, no panic
//! assert_eq!(u8::try_from(&doc["user"]["id"]), Ok(7));
//! # Ok::<(), hardpack::Error>(())
//! ```

use crate::prelude::*;
use core::fmt;

use crate::timestamp::Timestamp;
use crate::value::borrowed::Node;
use crate::value::{Ext, Integer, Map, Value};

/// What indexing returns for an absent key or position.
static NIL: Value = Value::Nil;

impl Map {
    /// The value of the first entry whose key is the str `key`, in wire order.
    ///
    /// MessagePack maps may repeat a key; hardpack keeps every entry, and this returns the
    /// first. (Consumers that build a hash map from the entries usually keep the last: two
    /// readers of one document can disagree. Iterate the entries to see all of them.)
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find_map(|(k, v)| match k {
            Value::Str(s) if s == key => Some(v),
            _ => None,
        })
    }

    /// An index of the entries with a str key, sorted by key, for lookups in O(log n) on a
    /// large map that is read many times ([`get`](Self::get) is a scan, which is faster for a
    /// few lookups or a few entries). Building it sorts one position per str key (8 bytes
    /// each); decoding is not slowed: maps are indexed only when asked. Under repeated keys
    /// it answers what `get` answers: the first in wire order.
    ///
    /// ```
    /// use hardpack::Value;
    ///
    /// let map = Value::from_iter((0..1000).map(|i| (format!("k{i}"), Value::from(i))));
    /// let index = map.as_map().unwrap().index();
    /// assert_eq!(index.get("k977"), Some(&Value::from(977)));
    /// assert_eq!(index.get("absent"), None);
    /// ```
    pub fn index(&self) -> MapIndex<'_> {
        let mut order: Vec<usize> = self
            .0
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| k.is_str())
            .map(|(at, _)| at)
            .collect();
        // Positions break ties, so equal keys stay in wire order.
        order.sort_unstable_by(|&a, &b| key_bytes(self, a).cmp(key_bytes(self, b)).then(a.cmp(&b)));
        MapIndex { map: self, order }
    }

    /// Like [`get`](Self::get), mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0.iter_mut().find_map(|(k, v)| match k {
            Value::Str(s) if s == key => Some(v),
            _ => None,
        })
    }
}

/// The bytes of the str key of entry `at` (empty for a key that is not a str).
fn key_bytes(map: &Map, at: usize) -> &[u8] {
    match map.0.get(at) {
        Some((Value::Str(s), _)) => s.as_bytes(),
        _ => &[],
    }
}

/// A sorted index of a [`Map`]'s str keys, from [`Map::index`].
#[derive(Clone, Debug)]
pub struct MapIndex<'m> {
    map: &'m Map,
    /// Positions of the entries with a str key, by key, then by position.
    order: Vec<usize>,
}

impl<'m> MapIndex<'m> {
    /// The value of the first entry whose key is the str `key`: [`Map::get`] in O(log n).
    pub fn get(&self, key: &str) -> Option<&'m Value> {
        let first = self
            .order
            .partition_point(|&at| key_bytes(self.map, at) < key.as_bytes());
        let at = *self.order.get(first)?;
        (key_bytes(self.map, at) == key.as_bytes())
            .then(|| self.map.0.get(at).map(|(_, v)| v))
            .flatten()
    }

    /// True when some str key appears more than once.
    pub fn has_repeated_keys(&self) -> bool {
        self.order.windows(2).any(
            |pair| matches!(pair, [a, b] if key_bytes(self.map, *a) == key_bytes(self.map, *b)),
        )
    }
}

mod private {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for str {}
    impl Sealed for alloc::string::String {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
}

/// What a [`Value`] can be indexed by: a position (`usize`, into an array) or a key (`&str`
/// or `String`, into a map whose key is that str). Sealed.
pub trait Index: private::Sealed {
    #[doc(hidden)]
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value>;
    #[doc(hidden)]
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value>;
    #[doc(hidden)]
    fn index_into_node<'t, 'a>(&self, node: Node<'t, 'a>) -> Option<Node<'t, 'a>>;
}

impl Index for usize {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_array()?.get(*self)
    }
    fn index_into_node<'t, 'a>(&self, node: Node<'t, 'a>) -> Option<Node<'t, 'a>> {
        node.element(*self)
    }
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        match value {
            Value::Array(a) => a.get_mut(*self),
            _ => None,
        }
    }
}

impl Index for str {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_map()?.get(self)
    }
    fn index_into_node<'t, 'a>(&self, node: Node<'t, 'a>) -> Option<Node<'t, 'a>> {
        node.value_of(self)
    }
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        match value {
            Value::Map(m) => m.get_mut(self),
            _ => None,
        }
    }
}

impl Index for String {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(value)
    }
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        self.as_str().index_into_mut(value)
    }
    fn index_into_node<'t, 'a>(&self, node: Node<'t, 'a>) -> Option<Node<'t, 'a>> {
        self.as_str().index_into_node(node)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        (**self).index_into(value)
    }
    fn index_into_mut<'v>(&self, value: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(value)
    }
    fn index_into_node<'t, 'a>(&self, node: Node<'t, 'a>) -> Option<Node<'t, 'a>> {
        (**self).index_into_node(node)
    }
}

impl<I: Index> core::ops::Index<I> for Value {
    type Output = Value;

    /// The element at a position or the value of a str key; a shared nil when this is not an
    /// array (map) or the position (key) is absent. Never panics.
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NIL)
    }
}

impl Value {
    /// The element at a position, or the value of the first entry with a str key; `None` when
    /// absent or when this is not an array (map).
    ///
    /// ```
    /// use hardpack::Value;
    /// let v = Value::from_iter([("k", Value::from_iter([Value::from(true)]))]);
    /// assert_eq!(v.get("k").and_then(|k| k.get(0)), Some(&Value::Bool(true)));
    /// assert_eq!(v.get(0), None);
    /// ```
    pub fn get<I: Index>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// Like [`get`](Self::get), mutably.
    pub fn get_mut<I: Index>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    /// True for nil.
    pub const fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// True for a bool.
    pub const fn is_bool(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// True for an integer.
    pub const fn is_integer(&self) -> bool {
        matches!(self, Value::Integer(_))
    }

    /// True for an f32 or f64.
    pub const fn is_float(&self) -> bool {
        matches!(self, Value::F32(_) | Value::F64(_))
    }

    /// True for a str.
    pub const fn is_str(&self) -> bool {
        matches!(self, Value::Str(_))
    }

    /// True for a bin.
    pub const fn is_bin(&self) -> bool {
        matches!(self, Value::Bin(_))
    }

    /// True for an array.
    pub const fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// True for a map.
    pub const fn is_map(&self) -> bool {
        matches!(self, Value::Map(_))
    }

    /// True for an ext other than a timestamp.
    pub const fn is_ext(&self) -> bool {
        matches!(self, Value::Ext(_))
    }

    /// True for a timestamp.
    pub const fn is_timestamp(&self) -> bool {
        matches!(self, Value::Timestamp(_))
    }

    /// The bool, if this is one.
    pub const fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer, if this is one.
    pub const fn as_integer(&self) -> Option<Integer> {
        match self {
            Value::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// The integer as `u64`, if this is a non-negative integer.
    pub const fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Integer(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The integer as `i64`, if this is an integer that fits.
    pub const fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The float as `f64` (an f32 widened exactly), if this is a float. Integers are not
    /// converted: large ones would lose precision silently.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F32(x) => Some(f64::from(*x)),
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }

    /// The text, if this is a str.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The bytes, if this is a bin.
    pub fn as_bin(&self) -> Option<&[u8]> {
        match self {
            Value::Bin(b) => Some(b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The ext, if this is one (timestamps are [`as_timestamp`](Self::as_timestamp)).
    pub fn as_ext(&self) -> Option<&Ext> {
        match self {
            Value::Ext(e) => Some(e),
            _ => None,
        }
    }

    /// The timestamp, if this is one.
    pub const fn as_timestamp(&self) -> Option<Timestamp> {
        match self {
            Value::Timestamp(ts) => Some(*ts),
            _ => None,
        }
    }
}

/// A [`Value`] that does not convert to the Rust type asked for: another variant, or an
/// integer out of the type's range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TryFromValueError {
    expected: &'static str,
    found: String,
}

impl TryFromValueError {
    fn new(expected: &'static str, value: &Value) -> Self {
        let found = match value {
            Value::Integer(n) => format!("integer {n}"),
            other => other.type_name().to_string(),
        };
        TryFromValueError { expected, found }
    }
}

impl fmt::Display for TryFromValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl core::error::Error for TryFromValueError {}

macro_rules! try_from_integer {
    ($($t:ty),*) => {$(
        impl TryFrom<&Value> for $t {
            type Error = TryFromValueError;
            /// The integer, if it is one and fits.
            fn try_from(value: &Value) -> Result<$t, TryFromValueError> {
                value
                    .as_integer()
                    .and_then(|n| <$t>::try_from(n.as_i128()).ok())
                    .ok_or_else(|| TryFromValueError::new(stringify!($t), value))
            }
        }
    )*};
}
try_from_integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl TryFrom<&Value> for bool {
    type Error = TryFromValueError;
    fn try_from(value: &Value) -> Result<bool, TryFromValueError> {
        value
            .as_bool()
            .ok_or_else(|| TryFromValueError::new("bool", value))
    }
}

impl TryFrom<&Value> for f64 {
    type Error = TryFromValueError;
    /// An f32 or f64 (integers are not converted).
    fn try_from(value: &Value) -> Result<f64, TryFromValueError> {
        value
            .as_f64()
            .ok_or_else(|| TryFromValueError::new("float", value))
    }
}

impl<'v> TryFrom<&'v Value> for &'v str {
    type Error = TryFromValueError;
    fn try_from(value: &'v Value) -> Result<&'v str, TryFromValueError> {
        value
            .as_str()
            .ok_or_else(|| TryFromValueError::new("str", value))
    }
}

impl<'v> TryFrom<&'v Value> for &'v [u8] {
    type Error = TryFromValueError;
    /// The bytes of a bin.
    fn try_from(value: &'v Value) -> Result<&'v [u8], TryFromValueError> {
        value
            .as_bin()
            .ok_or_else(|| TryFromValueError::new("bin", value))
    }
}

#[cfg(test)]
mod tests {
    use crate::timestamp::Timestamp;
    use crate::value::{Ext, Value};

    #[test]
    fn indexing_never_panics_and_finds_what_is_there() {
        let mut v = Value::from_iter([("a", Value::from_iter([Value::from(1), Value::from(2)]))]);
        assert_eq!(v["a"][1], Value::from(2));
        assert_eq!(v[&"a".to_string()][0], Value::from(1));
        assert!(v["a"][2].is_nil());
        assert!(v["b"].is_nil());
        assert!(v[0].is_nil());
        assert!(v["a"]["x"].is_nil());
        *v.get_mut("a").and_then(|a| a.get_mut(0)).unwrap() = Value::from("x");
        assert_eq!(v["a"][0], "x".into());
    }

    #[test]
    fn every_key_type_indexes_owned_values_mutably_and_borrowed_nodes() {
        let mut v = Value::from_iter([("a", 1), ("b", 2)]);
        let b = String::from("b");
        *v.get_mut(&b).unwrap() = Value::from(20);
        *v.get_mut("a").unwrap() = Value::from(10);
        assert_eq!((v["a"].as_u64(), v["b"].as_u64()), (Some(10), Some(20)));
        if let Value::Map(m) = &mut v {
            *m.get_mut("b").unwrap() = Value::from(200);
            assert!(m.get_mut("c").is_none());
        }
        assert_eq!(v[&b], Value::from(200));
        assert!(v.get_mut(String::from("c")).is_none());
        let bytes = crate::encode(&v).unwrap();
        let doc = crate::decode_ref(&bytes).unwrap();
        let root = doc.root();
        assert_eq!(root.get(&b).and_then(|n| n.as_u64()), Some(200));
        assert_eq!(
            root.get(String::from("a")).and_then(|n| n.as_u64()),
            Some(10)
        );
        assert!(root.get(String::from("c")).is_none());
    }

    #[test]
    fn duplicate_keys_index_the_first_entry() {
        let v = Value::from_iter([("k", 1), ("k", 2)]);
        assert_eq!(v["k"], Value::from(1));
        assert_eq!(v.as_map().unwrap().len(), 2);
    }

    #[test]
    fn accessors_answer_only_for_their_variant() {
        let ts = Timestamp::new(1, 2).unwrap();
        let cases = [
            Value::Nil,
            Value::Bool(true),
            Value::from(-5),
            Value::F32(0.5),
            Value::from("s"),
            Value::from(vec![9u8]),
            Value::from_iter([Value::Nil]),
            Value::from_iter([(1, 2)]),
            Value::Ext(Ext::new(3, b"e")),
            Value::Timestamp(ts),
        ];
        for v in &cases {
            let tests = [
                v.is_nil(),
                v.is_bool(),
                v.is_integer(),
                v.is_float(),
                v.is_str(),
                v.is_bin(),
                v.is_array(),
                v.is_map(),
                v.is_ext(),
                v.is_timestamp(),
            ];
            assert_eq!(tests.iter().filter(|t| **t).count(), 1, "{v:?}");
        }
        assert_eq!(cases[1].as_bool(), Some(true));
        assert_eq!(cases[2].as_i64(), Some(-5));
        assert_eq!(cases[2].as_u64(), None);
        assert_eq!(cases[3].as_f64(), Some(0.5));
        assert_eq!(cases[2].as_f64(), None);
        assert_eq!(cases[4].as_str(), Some("s"));
        assert_eq!(cases[5].as_bin(), Some(&[9u8][..]));
        assert_eq!(cases[8].as_ext().map(Ext::ext_type), Some(3));
        assert_eq!(cases[9].as_timestamp(), Some(ts));
        assert_eq!(cases[0].as_str(), None);
    }

    #[test]
    fn try_from_checks_variant_and_range() {
        assert_eq!(u8::try_from(&Value::from(255)), Ok(255));
        let err = u8::try_from(&Value::from(256)).unwrap_err();
        assert_eq!(err.to_string(), "expected u8, found integer 256");
        assert_eq!(i8::try_from(&Value::from(-128)), Ok(-128));
        assert_eq!(u64::try_from(&Value::from(u64::MAX)), Ok(u64::MAX));
        assert!(i64::try_from(&Value::from(u64::MAX)).is_err());
        assert_eq!(
            <&str>::try_from(&Value::Nil).unwrap_err().to_string(),
            "expected str, found nil"
        );
        for b in [false, true] {
            assert_eq!(bool::try_from(&Value::Bool(b)), Ok(b));
        }
        for x in [1.0, -2.5] {
            assert_eq!(f64::try_from(&Value::F64(x)), Ok(x));
        }
        assert_eq!(f64::try_from(&Value::F32(0.5)), Ok(0.5));
        assert!(
            f64::try_from(&Value::from(1)).is_err(),
            "integers are not converted"
        );
        for bytes in [&[1u8][..], &[7, 8], &[]] {
            assert_eq!(<&[u8]>::try_from(&Value::from(bytes)), Ok(bytes));
        }
    }

    #[test]
    fn the_index_answers_what_get_answers() {
        // Maps over a small alphabet of keys, so keys repeat; every third key is no str.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..60 {
            let entries: Vec<(Value, Value)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let key = if i % 3 == 2 {
                        Value::from(seed % 5)
                    } else {
                        Value::from(["", "a", "b", "ab", "é"][(seed % 5) as usize])
                    };
                    (key, Value::from(i))
                })
                .collect();
            let value = Value::from(entries);
            let map = value.as_map().unwrap();
            let index = map.index();
            for key in ["", "a", "b", "ab", "é", "absent", "0"] {
                assert_eq!(index.get(key), map.get(key), "{key:?} in {value:?}");
            }
            let mut keys: Vec<&str> = map.iter().filter_map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            let repeated = keys.windows(2).any(|w| w[0] == w[1]);
            assert_eq!(index.has_repeated_keys(), repeated, "{value:?}");
        }
    }
}
