//! Every format family and boundary of the MessagePack spec, decoded and encoded minimally.

use hardpack::{decode, encode, timestamp::Timestamp, value::Ext, value::Integer, Value};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Decodes `wire` to `value`, and encodes `value` back to exactly `wire`.
fn both_ways(wire: &[u8], value: Value) {
    let decoded = decode(wire).unwrap_or_else(|e| panic!("{wire:02x?}: {e}"));
    assert_eq!(decoded, value, "decoding {wire:02x?}");
    assert_eq!(encode(&value).unwrap(), wire, "encoding {value:?}");
}

/// Decodes a non-minimal `wire` to `value`, whose minimal encoding is `minimal`.
fn decodes_to_shorter(wire: &[u8], value: Value, minimal: &[u8]) {
    assert_eq!(decode(wire).unwrap(), value, "decoding {wire:02x?}");
    assert_eq!(encode(&value).unwrap(), minimal);
}

#[test]
fn nil_and_bool() {
    both_ways(&[0xc0], Value::Nil);
    both_ways(&[0xc2], Value::Bool(false));
    both_ways(&[0xc3], Value::Bool(true));
}

#[test]
fn unsigned_width_edges() {
    let cases: [(u64, &str); 10] = [
        (0, "00"),
        (0x7f, "7f"),
        (0x80, "cc 80"),
        (0xff, "cc ff"),
        (0x100, "cd 01 00"),
        (0xffff, "cd ff ff"),
        (0x1_0000, "ce 00 01 00 00"),
        (0xffff_ffff, "ce ff ff ff ff"),
        (0x1_0000_0000, "cf 00 00 00 01 00 00 00 00"),
        (u64::MAX, "cf ff ff ff ff ff ff ff ff"),
    ];
    for (n, wire) in cases {
        both_ways(&hex(wire), Value::from(n));
    }
}

#[test]
fn signed_width_edges() {
    let cases: [(i64, &str); 10] = [
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0 df"),
        (-128, "d0 80"),
        (-129, "d1 ff 7f"),
        (-32768, "d1 80 00"),
        (-32769, "d2 ff ff 7f ff"),
        (i64::from(i32::MIN), "d2 80 00 00 00"),
        (i64::from(i32::MIN) - 1, "d3 ff ff ff ff 7f ff ff ff"),
        (i64::MIN, "d3 80 00 00 00 00 00 00 00"),
    ];
    for (n, wire) in cases {
        both_ways(&hex(wire), Value::from(n));
    }
}

#[test]
fn signedness_is_normalised() {
    // A non-negative number in a signed format is the same integer as in an unsigned one.
    decodes_to_shorter(
        &hex("d3 00 00 00 00 00 00 00 05"),
        Value::from(5u8),
        &[0x05],
    );
    decodes_to_shorter(&hex("d0 7f"), Value::from(127u8), &[0x7f]);
    decodes_to_shorter(
        &hex("cf 00 00 00 00 00 00 00 01"),
        Value::from(1u8),
        &[0x01],
    );
    assert_eq!(Integer::from(5i64), Integer::from(5u64));
    assert_eq!(Integer::from(u64::MAX).as_i64(), None);
    assert_eq!(Integer::from(-1i64).as_u64(), None);
}

#[test]
fn floats_stay_apart() {
    both_ways(&hex("ca 3f c0 00 00"), Value::F32(1.5));
    both_ways(&hex("cb 3f f8 00 00 00 00 00 00"), Value::F64(1.5));
    assert_ne!(Value::F32(1.5), Value::F64(1.5));
    let nan = decode(&hex("cb 7f f8 00 00 00 00 00 01")).unwrap();
    assert_eq!(nan, nan, "NaN compares by bits");
    assert_eq!(encode(&nan).unwrap(), hex("cb 7f f8 00 00 00 00 00 01"));
}

fn str_wire(len: usize) -> Vec<u8> {
    let mut wire = match len {
        0..=31 => vec![0xa0 | len as u8],
        32..=255 => vec![0xd9, len as u8],
        256..=65535 => {
            let mut h = vec![0xda];
            h.extend_from_slice(&(len as u16).to_be_bytes());
            h
        }
        _ => {
            let mut h = vec![0xdb];
            h.extend_from_slice(&(len as u32).to_be_bytes());
            h
        }
    };
    wire.extend(std::iter::repeat_n(b'x', len));
    wire
}

#[test]
fn str_length_edges() {
    for len in [0, 1, 31, 32, 255, 256, 65535, 65536] {
        let text = "x".repeat(len);
        both_ways(&str_wire(len), Value::from(text.as_str()));
    }
    decodes_to_shorter(&hex("d9 01 61"), Value::from("a"), &hex("a1 61"));
    decodes_to_shorter(&hex("db 00 00 00 01 61"), Value::from("a"), &hex("a1 61"));
}

#[test]
fn bin_length_edges() {
    for (len, head) in [
        (0usize, vec![0xc4, 0]),
        (255, vec![0xc4, 0xff]),
        (256, vec![0xc5, 0x01, 0x00]),
        (65535, vec![0xc5, 0xff, 0xff]),
        (65536, vec![0xc6, 0, 1, 0, 0]),
    ] {
        let body = vec![7u8; len];
        let mut wire = head;
        wire.extend_from_slice(&body);
        both_ways(&wire, Value::Bin(body.into()));
    }
}

#[test]
fn array_and_map_length_edges() {
    for len in [0usize, 15, 16, 65535, 65536] {
        let mut wire = match len {
            0..=15 => vec![0x90 | len as u8],
            16..=65535 => [vec![0xdc], (len as u16).to_be_bytes().to_vec()].concat(),
            _ => [vec![0xdd], (len as u32).to_be_bytes().to_vec()].concat(),
        };
        wire.extend(std::iter::repeat_n(0xc0, len));
        both_ways(&wire, Value::from(vec![Value::Nil; len]));

        let mut wire = match len {
            0..=15 => vec![0x80 | len as u8],
            16..=65535 => [vec![0xde], (len as u16).to_be_bytes().to_vec()].concat(),
            _ => [vec![0xdf], (len as u32).to_be_bytes().to_vec()].concat(),
        };
        wire.extend(std::iter::repeat_n([0xc0, 0xc3], len).flatten());
        let entries = vec![(Value::Nil, Value::Bool(true)); len];
        both_ways(&wire, Value::from(entries));
    }
}

#[test]
fn maps_keep_order_and_duplicates() {
    let wire = hex("83 01 a1 61 01 a1 62 00 c0");
    let value = decode(&wire).unwrap();
    let map = value.as_map().unwrap();
    assert_eq!(map.len(), 3);
    assert_eq!(map[0].0, Value::from(1u8));
    assert_eq!(map[1], (Value::from(1u8), Value::from("b")));
    assert_eq!(encode(&value).unwrap(), wire);
}

#[test]
fn fixext_and_ext_forms() {
    for (len, marker) in [
        (1usize, 0xd4u8),
        (2, 0xd5),
        (4, 0xd6),
        (8, 0xd7),
        (16, 0xd8),
    ] {
        let mut wire = vec![marker, 0x05];
        wire.extend(std::iter::repeat_n(0xab, len));
        both_ways(&wire, Value::Ext(Ext::new(5, &vec![0xab; len])));
    }
    for (len, head) in [
        (0usize, vec![0xc7, 0x00]),
        (3, vec![0xc7, 0x03]),
        (17, vec![0xc7, 0x11]),
        (255, vec![0xc7, 0xff]),
        (256, vec![0xc8, 0x01, 0x00]),
        (65535, vec![0xc8, 0xff, 0xff]),
        (65536, vec![0xc9, 0x00, 0x01, 0x00, 0x00]),
    ] {
        let mut wire = head;
        wire.push(0x80); // type -128
        wire.extend(std::iter::repeat_n(1, len));
        both_ways(&wire, Value::Ext(Ext::new(-128, &vec![1; len])));
    }
}

fn ts(seconds: i64, nanos: u32) -> Value {
    Value::Timestamp(Timestamp::new(seconds, nanos).unwrap())
}

#[test]
fn timestamp_forms() {
    // 32-bit: seconds only.
    both_ways(&hex("d6 ff 00 00 00 00"), ts(0, 0));
    both_ways(&hex("d6 ff ff ff ff ff"), ts(u32::MAX as i64, 0));
    // 64-bit: 30 bits of nanoseconds, 34 bits of seconds.
    both_ways(&hex("d7 ff 00 00 00 04 00 00 00 00"), ts(0, 1));
    both_ways(&hex("d7 ff ee 6b 27 fc 00 00 00 00"), ts(0, 999_999_999));
    both_ways(&hex("d7 ff 00 00 00 03 ff ff ff ff"), ts((1 << 34) - 1, 0));
    both_ways(&hex("d7 ff 00 00 00 01 00 00 00 00"), ts(1 << 32, 0));
    // 96-bit: negative or beyond 34 bits.
    both_ways(
        &hex("c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff"),
        ts(-1, 0),
    );
    both_ways(
        &hex("c7 0c ff 3b 9a c9 ff 80 00 00 00 00 00 00 00"),
        ts(i64::MIN, 999_999_999),
    );
    both_ways(
        &hex("c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00"),
        ts(1 << 34, 0),
    );
    // Non-minimal forms decode to the same instant.
    decodes_to_shorter(
        &hex("d7 ff 00 00 00 00 00 00 00 07"),
        ts(7, 0),
        &hex("d6 ff 00 00 00 07"),
    );
    decodes_to_shorter(
        &hex("c7 0c ff 00 00 00 00 00 00 00 00 00 00 00 07"),
        ts(7, 0),
        &hex("d6 ff 00 00 00 07"),
    );
}

#[test]
fn debug_notation_is_readable() {
    let v = decode(&hex(
        "84 a1 61 01 a1 62 92 ff ca 3f c0 00 00 c0 c4 01 00 c4 00 d4 05 41",
    ))
    .unwrap();
    assert_eq!(
        format!("{v:?}"),
        r#"{"a": 1, "b": [-1, 1.5f32], nil: b"\x00", b"": ext(5, b"A")}"#
    );
    assert_eq!(format!("{:?}", ts(1, 2)), "ts(1, 2)");
}

#[test]
fn a_value_is_at_most_three_words() {
    // Memory per decoded element (the ten-million-empty-arrays audit) depends on it. The
    // compile-time assert pins 24 bytes on 64-bit targets; this bounds it on every target.
    assert!(std::mem::size_of::<Value>() <= 3 * std::mem::size_of::<usize>().max(8));
}
