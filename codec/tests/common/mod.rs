//! What several test files share (each uses some of it).
#![allow(dead_code)]

use hardpack::{timestamp::Timestamp, value::Ext, Value};
use proptest::prelude::*;
use serde::Deserialize;

/// The attacks every surface must give the owned decoder's verdict on: huge claims, the
/// reserved marker, truncation, trailing bytes, invalid UTF-8, timestamps, a repeated key, a
/// 200,000-deep nesting, a million empty maps, and long non-ASCII text.
pub fn attacks() -> Vec<Vec<u8>> {
    let mut cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0xdd, 0xff, 0xff, 0xff, 0xff], // 4 GiB array claim
        vec![0xdb, 0xff, 0xff, 0xff, 0xff, b'a'], // 4 GiB str claim
        vec![0xc1],
        vec![0x92, 0x01],                                     // truncated
        vec![0x91, 0x01, 0x02],                               // trailing
        vec![0xa2, 0xc3, 0x28],                               // invalid UTF-8
        vec![0xd6, 0xff, 0, 0, 0, 0],                         // timestamp 32
        vec![0xd7, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], // bad nanoseconds
        vec![0x82, 0xa1, b'k', 0x90, 0xa1, b'k', 0xc3],       // a repeated key
    ];
    let mut deep = vec![0x91u8; 200_000];
    deep.push(0xc0);
    cases.push(deep);
    let mut maps = vec![0xdd, 0x00, 0x0f, 0x42, 0x40]; // a million empty maps
    maps.extend(std::iter::repeat_n(0x80, 1_000_000));
    cases.push(maps);
    let long = "é".repeat(40);
    cases.push([&[0xd9, long.len() as u8][..], long.as_bytes()].concat());
    cases
}

/// A document generator biased towards structure: containers, strs, bins, exts.
pub fn documents() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        Just(vec![0xc0]),
        (0u8..16).prop_map(|n| vec![0x90 | n]),
        (0u8..16).prop_map(|n| vec![0x80 | n]),
        (0u8..40).prop_map(|n| {
            let mut v = vec![0xd9, n];
            v.extend(std::iter::repeat_n(b'a', usize::from(n)));
            v
        }),
        (0u8..8).prop_map(|n| vec![0xc4, n, 1, 2, 3]),
        Just(vec![0xd6, 0xff, 0, 0, 0, 1]),
        Just(vec![0xd4, 0x05, 0x01]),
        any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(item, 0..40).prop_map(|items| items.concat())
}

/// Every kind of scalar, with the edges of each integer form.
pub fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Nil),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(0u64),
            Just(127),
            Just(128),
            Just(255),
            Just(256),
            Just(65535),
            Just(65536),
            Just(u32::MAX as u64),
            Just(u32::MAX as u64 + 1)
        ]
        .prop_map(Value::from),
        prop_oneof![
            Just(-32i64),
            Just(-33),
            Just(-128),
            Just(-129),
            Just(-32768),
            Just(-32769),
            Just(i32::MIN as i64),
            Just(i64::MIN)
        ]
        .prop_map(Value::from),
        any::<f32>().prop_map(Value::F32),
        any::<f64>().prop_map(Value::F64),
        ".{0,40}".prop_map(|s| Value::Str(s.into())),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| Value::Bin(b.into())),
        (
            any::<i8>().prop_filter("-1 is the timestamp type", |t| *t != -1),
            proptest::collection::vec(any::<u8>(), 0..20)
        )
            .prop_map(|(t, b)| Value::Ext(Ext::new(t, &b))),
        (any::<i64>(), 0u32..1_000_000_000)
            .prop_map(|(s, n)| Value::Timestamp(Timestamp::new(s, n).unwrap())),
        (
            0i64..(1 << 34),
            prop_oneof![Just(0u32), 0u32..1_000_000_000]
        )
            .prop_map(|(s, n)| Value::Timestamp(Timestamp::new(s, n).unwrap())),
    ]
}

/// Any value, nested up to 6 deep.
pub fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 96, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::from),
            proptest::collection::vec((inner.clone(), inner), 0..20).prop_map(Value::from),
        ]
    })
}

/// A reader of `bytes`, three at a time, that is interrupted before every piece and, once
/// the bytes run out, ends or fails with `fail` (and panics if asked again after failing: a
/// failure is not to be retried).
pub struct Flaky {
    bytes: Vec<u8>,
    at: usize,
    interrupt: bool,
    fail: Option<std::io::ErrorKind>,
    failed: bool,
}

impl Flaky {
    pub fn new(bytes: &[u8], fail: Option<std::io::ErrorKind>) -> Self {
        Flaky {
            bytes: bytes.to_vec(),
            at: 0,
            interrupt: false,
            fail,
            failed: false,
        }
    }

    /// The next piece, or the interruption or failure due instead.
    fn piece(&mut self) -> std::io::Result<&[u8]> {
        assert!(!self.failed, "a failed read was retried");
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        if self.at == self.bytes.len() {
            if let Some(kind) = self.fail {
                self.failed = true;
                return Err(std::io::Error::new(kind, "the socket closed"));
            }
        }
        let end = (self.at + 3).min(self.bytes.len());
        Ok(&self.bytes[self.at..end])
    }
}

impl std::io::Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let piece = self.piece()?;
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        self.at += n;
        Ok(n)
    }
}

impl std::io::BufRead for Flaky {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.piece()
    }

    fn consume(&mut self, amt: usize) {
        self.at += amt;
    }
}

/// A recursive type of every shape serde recurses through.
#[derive(Deserialize, Debug)]
pub enum Tree {
    Leaf,
    Boxed(Box<Tree>),
    List(Vec<Tree>),
    Map(std::collections::HashMap<String, Tree>),
}
