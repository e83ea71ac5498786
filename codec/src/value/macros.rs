//! `msgpack!`: a [`Value`](crate::Value) written as a literal.

/// Builds a [`Value`](crate::Value) from a JSON-like literal: `nil`, arrays `[...]`, maps
/// `{key: value, ...}`, and any expression with a `From` conversion into `Value` in between.
///
/// ```
/// use hardpack::{msgpack, Value};
///
/// let id = 7u32;
/// let doc = msgpack!({
///     "id": id,
///     "tags": ["a", -1, 2.5, nil, [], {}],
///     (id + 1): {"nested": true},
///     "bin": &b"\x00\x01"[..],
/// });
/// assert_eq!(doc["tags"][1], Value::from(-1));
/// assert_eq!(doc.to_string(), r#"{"id": 7, "tags": ["a", -1, 2.5, null, [], {}], 8: {"nested": true}, "bin": b"\x00\x01"}"#);
/// ```
///
/// A map key is one token: a literal, a variable or `nil`; write any other key expression
/// in parentheses (`(id + 1)`, `(-1)`). Each element is one step of macro recursion, so very
/// long literals meet the compiler's `recursion_limit`; build those with `FromIterator`.
#[macro_export]
macro_rules! msgpack {
    (nil) => { $crate::Value::Nil };
    ([]) => { $crate::Value::Array($crate::value::Array::default()) };
    ([ $($items:tt)+ ]) => {
        $crate::Value::from($crate::msgpack!(@array [] $($items)+))
    };
    ({}) => { $crate::Value::Map($crate::value::Map::default()) };
    ({ $($entries:tt)+ }) => {
        $crate::Value::from($crate::msgpack!(@map [] $($entries)+))
    };
    ($other:expr) => { $crate::Value::from($other) };

    // Arrays: one element at a time into `[done,]`.
    (@array [$($done:expr,)*]) => { $crate::__private::vec![$($done,)*] };
    (@array [$($done:expr,)*] nil $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@array [$($done,)* $crate::Value::Nil,] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@array [$($done,)* $crate::msgpack!([$($inner)*]),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@array [$($done,)* $crate::msgpack!({$($inner)*}),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] $next:expr $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@array [$($done,)* $crate::Value::from($next),] $($($rest)*)?)
    };

    // Maps: one `key: value` entry at a time into `[done,]`.
    (@map [$($done:expr,)*]) => { $crate::__private::vec![$($done,)*] };
    (@map [$($done:expr,)*] $key:tt : nil $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@map [$($done,)* ($crate::msgpack!($key), $crate::Value::Nil),] $($($rest)*)?)
    };
    (@map [$($done:expr,)*] $key:tt : [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@map [$($done,)* ($crate::msgpack!($key), $crate::msgpack!([$($inner)*])),] $($($rest)*)?)
    };
    (@map [$($done:expr,)*] $key:tt : {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@map [$($done,)* ($crate::msgpack!($key), $crate::msgpack!({$($inner)*})),] $($($rest)*)?)
    };
    (@map [$($done:expr,)*] $key:tt : $value:expr $(, $($rest:tt)*)?) => {
        $crate::msgpack!(@map [$($done,)* ($crate::msgpack!($key), $crate::Value::from($value)),] $($($rest)*)?)
    };
}

#[cfg(test)]
mod tests {
    use crate::{decode, Value};

    #[test]
    fn literals_build_the_values_they_spell() {
        assert_eq!(msgpack!(nil), Value::Nil);
        assert_eq!(msgpack!(-5), Value::from(-5));
        assert_eq!(msgpack!([]), Value::from(Vec::<Value>::new()));
        assert_eq!(msgpack!({}), Value::from(Vec::<(Value, Value)>::new()));
        assert_eq!(
            msgpack!([1, [nil, -2], {"k": "v"},]),
            decode(b"\x93\x01\x92\xc0\xfe\x81\xa1k\xa1v").unwrap()
        );
        let n = 3;
        assert_eq!(
            msgpack!({nil: nil, (n * 2): [n], "m": {}, 1: n + 1}),
            Value::from(vec![
                (Value::Nil, Value::Nil),
                (Value::from(6), Value::from(vec![Value::from(3)])),
                (Value::from("m"), Value::from(Vec::<(Value, Value)>::new())),
                (Value::from(1), Value::from(4)),
            ])
        );
    }
}
