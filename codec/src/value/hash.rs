//! `Hash` consistent with `Eq`: one walk, each value hashed by its variant and data (floats by
//! their bits, as `Eq` compares them; containers by their length, which with the pre-order
//! makes the sequence unambiguous). No recursion.

use core::hash::{Hash, Hasher};

use crate::value::walk::{Event, Root, Token, Walk};
use crate::value::{Array, Map, Value};

fn hash_walk<H: Hasher>(walk: Walk<'_>, state: &mut H) {
    for event in walk {
        let Event::Enter(_, token) = event else {
            continue;
        };
        match token {
            Token::Nil => state.write_u8(0),
            Token::Bool(b) => {
                state.write_u8(1);
                b.hash(state);
            }
            Token::Integer(n) => {
                state.write_u8(2);
                n.hash(state);
            }
            Token::F32(x) => {
                state.write_u8(3);
                x.to_bits().hash(state);
            }
            Token::F64(x) => {
                state.write_u8(4);
                x.to_bits().hash(state);
            }
            Token::Str(s) => {
                state.write_u8(5);
                s.as_bytes().hash(state);
            }
            Token::Bin(b) => {
                state.write_u8(6);
                b.hash(state);
            }
            Token::Ext(t, b) => {
                state.write_u8(7);
                t.hash(state);
                b.hash(state);
            }
            Token::Timestamp(ts) => {
                state.write_u8(8);
                ts.hash(state);
            }
            Token::Array(n) => {
                state.write_u8(9);
                n.hash(state);
            }
            Token::Map(n) => {
                state.write_u8(10);
                n.hash(state);
            }
        }
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_walk(Walk::new(Root::Value(self)), state);
    }
}

impl Hash for Array {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_walk(Walk::new(Root::Items(&self.0)), state);
    }
}

impl Hash for Map {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_walk(Walk::new(Root::Entries(&self.0)), state);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};

    use crate::decode;
    use crate::timestamp::Timestamp;
    use crate::value::{Ext, Value};

    #[test]
    fn equal_values_hash_alike_whatever_their_wire_form() {
        // uint 8 5 and int 64 5 decode equal; so do a NaN and itself; f32 and f64 stay apart.
        let a = decode(&[0x91, 0xcc, 0x05]).unwrap();
        let b = decode(&[0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 5]).unwrap();
        let nan = Value::F64(f64::NAN);
        let set: HashSet<Value> = [a, b, nan.clone(), nan, Value::F32(1.0), Value::F64(1.0)]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 4, "{set:?}");
    }

    /// With a fixed key, so that the answer is the same on every run.
    fn hash_of(value: &impl Hash) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn unequal_values_hash_apart() {
        let ext = |t, d: &[u8]| Value::Ext(Ext::new(t, d));
        let values = [
            Value::Nil,
            Value::Bool(false),
            Value::Bool(true),
            Value::from(0),
            Value::from(1),
            Value::F32(0.0),
            Value::F64(0.0),
            Value::from(""),
            Value::from("a"),
            Value::from(&[][..]),
            Value::from(&b"a"[..]),
            ext(0, b""),
            ext(1, b""),
            ext(0, b"a"),
            Value::Timestamp(Timestamp::new(0, 0).unwrap()),
            Value::from(Vec::<Value>::new()),
            Value::from(vec![Value::Nil]),
            Value::from(Vec::<(Value, Value)>::new()),
            Value::from(vec![(Value::Nil, Value::Nil)]),
            // The same leaves, nested differently.
            Value::from(vec![Value::from(vec![Value::Nil]), Value::Nil]),
            Value::from(vec![Value::from(vec![Value::Nil, Value::Nil])]),
        ];
        let hashes: HashSet<u64> = values.iter().map(hash_of).collect();
        assert_eq!(hashes.len(), values.len(), "a collision among {values:?}");
    }

    #[test]
    fn arrays_and_maps_hash_as_equality_sees_them() {
        let array = |v: Value| match v {
            Value::Array(a) => a,
            _ => unreachable!(),
        };
        let map = |v: Value| match v {
            Value::Map(m) => m,
            _ => unreachable!(),
        };
        let one = array(decode(&[0x91, 0xcc, 0x05]).unwrap());
        let same = array(decode(&[0x91, 0x05]).unwrap());
        let other = array(decode(&[0x91, 0x06]).unwrap());
        assert_eq!(hash_of(&one), hash_of(&same));
        assert_ne!(hash_of(&one), hash_of(&other));
        let one = map(decode(&[0x81, 0xa1, b'k', 0x05]).unwrap());
        let other = map(decode(&[0x81, 0xa1, b'k', 0x06]).unwrap());
        assert_eq!(hash_of(&one), hash_of(&one.clone()));
        assert_ne!(hash_of(&one), hash_of(&other));
    }
}
