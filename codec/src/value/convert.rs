//! Building values from Rust values: `From`, `FromIterator`, `Default`, and iterating arrays
//! and maps.

use crate::prelude::*;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
#[cfg(feature = "std")]
use std::collections::HashMap;

use crate::timestamp::Timestamp;
use crate::value::{Array, Ext, IntRepr, Integer, Map, Str, Value};

impl From<u64> for Integer {
    fn from(n: u64) -> Self {
        Integer(IntRepr::NonNegative(n))
    }
}

impl From<i64> for Integer {
    fn from(n: i64) -> Self {
        match u64::try_from(n) {
            Ok(u) => Integer(IntRepr::NonNegative(u)),
            Err(_) => Integer(IntRepr::Negative(n)),
        }
    }
}

macro_rules! integer_from {
    ($via:ty: $($t:ty),*) => {$(
        impl From<$t> for Integer {
            fn from(n: $t) -> Self {
                Integer::from(<$via>::from(n))
            }
        }
        impl From<$t> for Value {
            fn from(n: $t) -> Self {
                Value::Integer(Integer::from(n))
            }
        }
    )*};
}
integer_from!(u64: u8, u16, u32);
integer_from!(i64: i8, i16, i32);

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Integer(Integer::from(n))
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Integer(Integer::from(n))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s.into())
    }
}

impl From<Str> for Value {
    fn from(s: Str) -> Self {
        Value::Str(s)
    }
}

impl From<Ext> for Value {
    fn from(e: Ext) -> Self {
        Value::Ext(e)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(Array::from(items))
    }
}

impl From<Vec<(Value, Value)>> for Value {
    fn from(entries: Vec<(Value, Value)>) -> Self {
        Value::Map(Map::from(entries))
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Self {
        // usize is at most 64 bits on every target Rust supports.
        Value::Integer(Integer(IntRepr::NonNegative(n as u64)))
    }
}

impl From<isize> for Value {
    fn from(n: isize) -> Self {
        Value::from(n as i64)
    }
}

impl From<f32> for Value {
    fn from(x: f32) -> Self {
        Value::F32(x)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::F64(x)
    }
}

impl From<&[u8]> for Value {
    /// A bin.
    fn from(bytes: &[u8]) -> Self {
        Value::Bin(bytes.into())
    }
}

impl From<Vec<u8>> for Value {
    /// A bin.
    fn from(bytes: Vec<u8>) -> Self {
        Value::Bin(bytes.into_boxed_slice())
    }
}

impl From<Box<[u8]>> for Value {
    /// A bin.
    fn from(bytes: Box<[u8]>) -> Self {
        Value::Bin(bytes)
    }
}

impl From<Timestamp> for Value {
    fn from(ts: Timestamp) -> Self {
        Value::Timestamp(ts)
    }
}

impl From<Integer> for Value {
    fn from(n: Integer) -> Self {
        Value::Integer(n)
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Self {
        Value::Array(a)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

impl From<()> for Value {
    /// nil
    fn from((): ()) -> Self {
        Value::Nil
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// nil for `None`.
    fn from(option: Option<T>) -> Self {
        option.map_or(Value::Nil, Into::into)
    }
}

impl<K: Into<Value>, V: Into<Value>> From<BTreeMap<K, V>> for Value {
    /// A map in the key order of the `BTreeMap`.
    fn from(map: BTreeMap<K, V>) -> Self {
        map.into_iter().collect()
    }
}

#[cfg(feature = "std")]
impl<K: Into<Value>, V: Into<Value>, S> From<HashMap<K, V, S>> for Value {
    /// A map in the `HashMap`'s iteration order.
    fn from(map: HashMap<K, V, S>) -> Self {
        map.into_iter().collect()
    }
}

impl Default for Value {
    /// nil
    fn default() -> Self {
        Value::Nil
    }
}

impl<T: Into<Value>> FromIterator<T> for Array {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Array::from(iter.into_iter().map(Into::into).collect::<Vec<Value>>())
    }
}

impl<K: Into<Value>, V: Into<Value>> FromIterator<(K, V)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Map::from(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect::<Vec<(Value, Value)>>(),
        )
    }
}

impl FromIterator<Value> for Value {
    /// An array.
    ///
    /// ```
    /// use hardpack::Value;
    /// let v: Value = (1..=3).map(Value::from).collect();
    /// assert_eq!(v.to_string(), "[1, 2, 3]");
    /// ```
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Self {
        Value::Array(iter.into_iter().collect())
    }
}

impl<K: Into<Value>, V: Into<Value>> FromIterator<(K, V)> for Value {
    /// A map, in iteration order (duplicate keys kept).
    ///
    /// ```
    /// use hardpack::Value;
    /// let v = Value::from_iter([("a", 1), ("b", 2)]);
    /// assert_eq!(v["b"], Value::from(2));
    /// ```
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Value::Map(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a Array {
    type Item = &'a Value;
    type IntoIter = core::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = &'a (Value, Value);
    type IntoIter = core::slice::Iter<'a, (Value, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl IntoIterator for Array {
    type Item = Value;
    type IntoIter = alloc::vec::IntoIter<Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl IntoIterator for Map {
    type Item = (Value, Value);
    type IntoIter = alloc::vec::IntoIter<(Value, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::timestamp::Timestamp;
    use crate::value::Value;

    #[test]
    fn rust_values_convert_to_the_matching_variant() {
        assert_eq!(Value::from(1.5f32), Value::F32(1.5));
        assert_eq!(Value::from(2.5), Value::F64(2.5));
        assert_eq!(Value::from(&b"ab"[..]), Value::Bin(Box::new(*b"ab")));
        assert_eq!(Value::from(vec![1u8]), Value::Bin(Box::new([1])));
        assert_eq!(Value::from(None::<u8>), Value::Nil);
        assert_eq!(Value::from(Some("x")), Value::from("x"));
        assert_eq!(Value::from(usize::MAX), Value::from(usize::MAX as u64));
        assert_eq!(Value::from(-3isize), Value::from(-3i64));
        let ts = Timestamp::new(5, 6).unwrap();
        assert_eq!(Value::from(ts), Value::Timestamp(ts));
        assert_eq!(Value::default(), Value::Nil);
        let map = BTreeMap::from([("b", 2), ("a", 1)]);
        assert_eq!(Value::from(map).to_string(), r#"{"a": 1, "b": 2}"#);
    }

    #[test]
    fn every_conversion_lands_in_its_variant_with_its_value() {
        use crate::value::{Ext, Integer, Str};
        let int = |v: Value| v.as_integer().map(Integer::as_i128);
        assert_eq!(int(Value::from(u8::MAX)), Some(255));
        assert_eq!(int(Value::from(u16::MAX)), Some(65_535));
        assert_eq!(int(Value::from(u32::MAX)), Some(i128::from(u32::MAX)));
        assert_eq!(int(Value::from(i8::MIN)), Some(-128));
        assert_eq!(int(Value::from(i16::MIN)), Some(-32_768));
        assert_eq!(int(Value::from(i32::MIN)), Some(i128::from(i32::MIN)));
        assert_eq!(int(Value::from(7usize)), Some(7));
        assert_eq!(int(Value::from(isize::MIN)), Some(isize::MIN as i128));
        assert_eq!(Integer::from(200u8), Integer::from(200i64));
        assert_eq!(Integer::from(-2i8).as_i64(), Some(-2));
        assert_eq!(Integer::from(u16::MAX).as_u64(), Some(65_535));
        assert_eq!(int(Value::from(Integer::from(-9i32))), Some(-9));
        assert_eq!(Value::from(true), Value::Bool(true));
        assert_eq!(Value::from(false), Value::Bool(false));
        assert_eq!(Value::from(String::from("é")).as_str(), Some("é"));
        assert_eq!(Value::from(Str::from("s")).as_str(), Some("s"));
        let ext = Ext::new(4, &[1, 2][..]);
        assert!(matches!(Value::from(ext.clone()), Value::Ext(e) if e == ext));
        let bin = Value::from(Box::<[u8]>::from(&b"xyz"[..]));
        assert_eq!(bin.as_bin(), Some(&b"xyz"[..]));
        assert_eq!(Value::from(()), Value::Nil);
        let array = Value::from(vec![Value::from(1u8)]);
        assert!(matches!(&array, Value::Array(a) if a.len() == 1));
        let Value::Array(items) = array else {
            panic!("an array");
        };
        assert_eq!(Value::from(items).to_string(), "[1]");
        let map = Value::from(vec![(Value::from("k"), Value::Nil)]);
        let Value::Map(entries) = map else {
            panic!("a map");
        };
        assert_eq!(Value::from(entries).to_string(), r#"{"k": null}"#);
        #[cfg(feature = "std")]
        {
            let hash_map = std::collections::HashMap::from([("only", 1u8)]);
            assert_eq!(Value::from(hash_map).to_string(), r#"{"only": 1}"#);
        }
        let from_pairs: crate::value::Map = [("a", 1), ("a", 2)].into_iter().collect();
        assert_eq!(from_pairs.len(), 2, "duplicates kept");
        let from_items: crate::value::Array = ["x", "y"].into_iter().collect();
        assert_eq!(from_items[1], Value::from("y"));
    }

    #[test]
    fn arrays_and_maps_iterate_by_reference_and_by_value() {
        let Value::Array(a) = Value::from_iter([Value::from(1), Value::from(2)]) else {
            panic!("an array");
        };
        let sum: u64 = (&a).into_iter().filter_map(Value::as_u64).sum();
        assert_eq!(sum, 3);
        assert_eq!(a.into_iter().count(), 2);
        let Value::Map(m) = Value::from_iter([("k", "v")]) else {
            panic!("a map");
        };
        let keys: Vec<&str> = (&m).into_iter().filter_map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["k"]);
        let owned: Vec<(Value, Value)> = m.into_iter().collect();
        assert_eq!(owned, [(Value::from("k"), Value::from("v"))]);
    }
}
