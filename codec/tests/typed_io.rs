//! Typed I/O: `from_read` buffers at most the budget; `to_writer` writes what `to_vec` returns,
//! in chunks; lengths past the format and unknown lengths; a value too deep for serde.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod common;
use common::Flaky;

#[test]
fn from_read_buffers_at_most_the_budget() {
    let bytes = rmp_serde::to_vec(&vec!["x"; 1000]).unwrap();
    let small = hardpack::Decoder::new(
        hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 1 << 20),
    );
    let read: Vec<String> = small.from_read(&bytes[..]).unwrap();
    assert_eq!(read.len(), 1000);
    // A stream that never ends is refused once it outgrows the budget.
    let tiny =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 1000));
    let err = tiny
        .from_read::<Vec<u8>, _>(std::io::repeat(0x90))
        .unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::AllocBytes));
    assert_eq!(err.offset(), 1000);
    // A failing reader is an error at the offset reached.
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the socket closed"))
        }
    }
    let err = hardpack::Decoder::default()
        .from_read::<u8, _>(Broken)
        .unwrap_err();
    assert_eq!(
        err.kind(),
        &hardpack::ErrorKind::Io {
            message: "the socket closed".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "reading the input failed at byte 0: the socket closed"
    );
}

#[test]
fn from_read_retries_an_interrupted_read_and_reports_a_failed_one_where_it_happened() {
    use hardpack::{Decoder, ErrorKind, Limit, Limits};
    let bytes = hardpack::to_vec(&(1u8, "two", [3u16; 4])).unwrap();
    type Doc = (u8, String, [u16; 4]);
    let expected: Doc = (1, "two".into(), [3; 4]);
    let decoder = Decoder::default();
    assert_eq!(
        decoder
            .from_read::<Doc, _>(Flaky::new(&bytes, None))
            .unwrap(),
        expected
    );
    let e = decoder
        .from_read::<Doc, _>(Flaky::new(
            &bytes[..7],
            Some(std::io::ErrorKind::ConnectionReset),
        ))
        .unwrap_err();
    let socket_closed = ErrorKind::Io {
        message: "the socket closed".into(),
    };
    assert_eq!((e.kind(), e.offset()), (&socket_closed, 7));
    // A budget exactly the document's length (and more than its decode charges, a byte an
    // element): the read that looks for one byte more is interrupted first, then finds the
    // end, or fails.
    let small = [0x94, 0x01, 0x02, 0x03, 0x04];
    let exact = Decoder::new(Limits::default().with(Limit::AllocBytes, small.len()));
    assert_eq!(
        exact
            .from_read::<[u8; 4], _>(Flaky::new(&small, None))
            .unwrap(),
        [1, 2, 3, 4]
    );
    let e = exact
        .from_read::<[u8; 4], _>(Flaky::new(
            &small,
            Some(std::io::ErrorKind::ConnectionReset),
        ))
        .unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&socket_closed, small.len()));
}

#[test]
fn serializing_a_value_too_deep_for_serde_is_refused_before_it_recurses() {
    let mut b = hardpack::value::ValueBuilder::new();
    for _ in 0..1_000_000 {
        b.start_array(1);
    }
    let deep = b.push(hardpack::Value::Nil).unwrap();
    let bytes = hardpack::encode(&deep).unwrap();
    std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(move || {
            let err = hardpack::to_vec(&deep).unwrap_err();
            assert!(err.to_string().contains("nested 1000000 deep"), "{err}");
            let doc = hardpack::Decoder::new(
                hardpack::Limits::default().with(hardpack::Limit::Depth, 1_000_000),
            )
            .decode_ref(&bytes)
            .unwrap();
            assert!(hardpack::to_vec(&doc).is_err());
        })
        .unwrap()
        .join()
        .unwrap();
    // At the bound it serializes.
    let mut b = hardpack::value::ValueBuilder::new();
    for _ in 0..hardpack::ser::SERIALIZE_MAX_DEPTH {
        b.start_array(1);
    }
    let at_bound = b.push(hardpack::Value::Nil).unwrap();
    let encoded = hardpack::encode(&at_bound).unwrap();
    assert_eq!(hardpack::to_vec(&at_bound).unwrap(), encoded);
    let borrowed = hardpack::Decoder::new(
        hardpack::Limits::default()
            .with(hardpack::Limit::Depth, hardpack::ser::SERIALIZE_MAX_DEPTH),
    )
    .decode_ref(&encoded)
    .unwrap();
    assert_eq!(
        hardpack::to_vec(&borrowed).unwrap(),
        encoded,
        "a ValueRef too"
    );
}

#[test]
fn to_writer_writes_what_to_vec_returns_even_when_called_from_inside_a_serialize() {
    /// Serializes as the bytes of its inner value written by `to_writer` (a `Serialize`
    /// that calls `to_writer` while the outer call holds the thread's buffer).
    struct Nested(Vec<u32>);
    impl Serialize for Nested {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut inner = Vec::new();
            hardpack::ser::to_writer(&mut inner, &self.0).map_err(serde::ser::Error::custom)?;
            s.serialize_bytes(&inner)
        }
    }
    let big: Vec<u64> = (0..100_000).collect(); // past what the thread keeps between calls
    for _ in 0..2 {
        let mut out = Vec::new();
        hardpack::ser::to_writer(&mut out, &big).unwrap();
        assert_eq!(out, hardpack::to_vec(&big).unwrap());
        let nested = Nested(vec![1, 2, 300]);
        let mut out = Vec::new();
        hardpack::ser::to_writer(&mut out, &nested).unwrap();
        assert_eq!(out, [0xc4, 6, 0x93, 1, 2, 0xcd, 0x01, 0x2c]);
        assert_eq!(out, hardpack::to_vec(&nested).unwrap());
    }
    // A writer that fails: the error says so, and the next call is not affected.
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = hardpack::ser::to_writer(&mut Broken, &1u8).unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
    let mut out = Vec::new();
    hardpack::ser::to_writer(&mut out, &1u8).unwrap();
    assert_eq!(out, [1]);
}

/// An `io::Write` that keeps each `write_all` it was handed apart, to see how `to_writer`
/// cuts a value.
#[derive(Default)]
struct Writes(Vec<Vec<u8>>);

impl std::io::Write for Writes {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.push(bytes.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Writes {
    fn concatenated(&self) -> Vec<u8> {
        self.0.concat()
    }
    fn largest(&self) -> usize {
        self.0.iter().map(Vec::len).max().unwrap_or(0)
    }
}

#[test]
fn to_writer_writes_a_large_value_as_it_encodes_it_and_a_small_one_in_one_write() {
    let mut small = Writes::default();
    hardpack::ser::to_writer(&mut small, &(1u8, "two", [3.0f64; 4])).unwrap();
    assert_eq!(small.0.len(), 1, "a small value is one write");
    assert_eq!(
        small.concatenated(),
        hardpack::to_vec(&(1u8, "two", [3.0f64; 4])).unwrap()
    );

    // 1,000,000 u64 (about 8.5 MB): written in chunks of TO_WRITER_CHUNK bytes (plus the
    // element that crossed it), never held whole.
    let big: Vec<u64> = (0..1_000_000u64).map(|i| i << 33).collect();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &big).unwrap();
    let whole = hardpack::to_vec(&big).unwrap();
    assert_eq!(writes.concatenated(), whole);
    assert!(
        writes.largest() <= hardpack::ser::TO_WRITER_CHUNK + 9,
        "a write of {} bytes",
        writes.largest()
    );
    assert!(writes.0.len() >= whole.len() / (hardpack::ser::TO_WRITER_CHUNK + 9));

    // A map's entries are the points it may be cut at too.
    let map: BTreeMap<u32, String> = (0..50_000).map(|i| (i, format!("value {i}"))).collect();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &map).unwrap();
    assert_eq!(writes.concatenated(), hardpack::to_vec(&map).unwrap());
    assert!(writes.0.len() > 1 && writes.largest() <= hardpack::ser::TO_WRITER_CHUNK + 64);
}

/// A sequence of unknown length (`serialize_seq(None)`) of `len` elements, each a
/// sequence of unknown length holding its index and a str.
struct UnsizedPairs {
    len: u32,
}

impl Serialize for UnsizedPairs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut outer = s.serialize_seq(None)?;
        for i in 0..self.len {
            outer.serialize_element(&UnsizedPair(i))?;
        }
        outer.end()
    }
}

struct UnsizedPair(u32);

impl Serialize for UnsizedPair {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut pair = s.serialize_seq(None)?;
        pair.serialize_element(&self.0)?;
        pair.serialize_element("an element of unknown length")?;
        pair.end()
    }
}

#[test]
fn to_writer_holds_a_sequence_of_unknown_length_until_its_header_is_known() {
    // Known-length sequences around and beside unknown-length ones, each larger than a chunk.
    let value = (
        vec![7u64 << 40; 10_000],
        UnsizedPairs { len: 20_000 },
        vec![UnsizedPairs { len: 3 }, UnsizedPairs { len: 5_000 }],
    );
    let whole = hardpack::to_vec(&value).unwrap();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &value).unwrap();
    assert_eq!(writes.concatenated(), whole);
    type Pairs = Vec<(u32, String)>;
    let decoded: (Vec<u64>, Pairs, Vec<Pairs>) = hardpack::from_slice(&whole).unwrap();
    assert_eq!(decoded.1.len(), 20_000);
    assert_eq!(
        decoded.1[19_999],
        (19_999, "an element of unknown length".into())
    );
    assert_eq!(decoded.2[1].len(), 5_000);
    // The 20,000-element sequence (about 640 KB) went out in one piece once it ended: its
    // header had to go in front of it.
    let unsized_bytes = hardpack::to_vec(&UnsizedPairs { len: 20_000 }).unwrap();
    assert!(writes.largest() >= unsized_bytes.len());
    assert!(writes.0.len() > 3, "the known-length parts are still cut");
}

#[test]
fn to_writer_has_written_what_came_before_a_serialize_error_in_a_large_value() {
    /// Fails at element `at`.
    struct FailsAt(u32);
    impl Serialize for FailsAt {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = s.serialize_seq(Some(1_000_000))?;
            for i in 0..self.0 {
                seq.serialize_element(&u64::from(i))?;
            }
            Err(serde::ser::Error::custom("element unavailable"))
        }
    }
    let mut writes = Writes::default();
    let err = hardpack::ser::to_writer(&mut writes, &FailsAt(200_000)).unwrap_err();
    assert!(err.to_string().contains("element unavailable"), "{err}");
    let written = writes.concatenated();
    assert!(written.len() >= hardpack::ser::TO_WRITER_CHUNK);
    assert_eq!(
        written[..3],
        [0xdd, 0x00, 0x0f],
        "the array's header went first"
    );
    // A small value that fails writes nothing.
    let mut writes = Writes::default();
    assert!(hardpack::ser::to_writer(&mut writes, &FailsAt(10)).is_err());
    assert!(writes.0.is_empty());
}

/// A sequence or map claiming more elements than a 32-bit length field holds is refused
/// before anything is written, naming what was too long and how long. (64-bit only: on a
/// 32-bit target no length can pass a 32-bit length field.)
#[test]
#[cfg(target_pointer_width = "64")]
fn a_length_past_the_format_is_an_error_naming_it() {
    struct Claims(bool);
    impl Serialize for Claims {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{SerializeMap, SerializeSeq};
            let len = Some(u32::MAX as usize + 1);
            if self.0 {
                serializer.serialize_map(len)?.end()
            } else {
                serializer.serialize_seq(len)?.end()
            }
        }
    }
    for (is_map, name, of) in [
        (false, "array", hardpack::error::LengthOf::Array),
        (true, "map", hardpack::error::LengthOf::Map),
    ] {
        let err = hardpack::to_vec(&Claims(is_map)).unwrap_err();
        assert_eq!(
            err.kind(),
            &hardpack::error::EncodeErrorKind::TooLong {
                of,
                len: u32::MAX as usize + 1
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "{name} of length 4294967296 cannot be encoded: MessagePack lengths are at most 4294967295"
            )
        );
    }
}

/// A map of unknown length (`serialize_map(None)`): `len` entries from `i` to `i * 2`.
struct UnsizedMap {
    len: u32,
}

impl Serialize for UnsizedMap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for i in 0..self.len {
            map.serialize_entry(&i, &(u64::from(i) * 2))?;
        }
        map.end()
    }
}

#[test]
fn a_map_of_unknown_length_gets_its_smallest_header_when_it_ends() {
    for (len, header) in [
        (0, &[0x80][..]),
        (15, &[0x8f]),
        (16, &[0xde, 0x00, 0x10]),
        (65_536, &[0xdf, 0x00, 0x01, 0x00, 0x00]),
    ] {
        let bytes = hardpack::to_vec(&UnsizedMap { len }).unwrap();
        assert!(
            bytes.starts_with(header),
            "{len} entries: {:02x?}",
            &bytes[..5.min(bytes.len())]
        );
        let expected: BTreeMap<u32, u64> = (0..len).map(|i| (i, u64::from(i) * 2)).collect();
        assert_eq!(
            bytes,
            rmp_serde::to_vec(&expected).unwrap(),
            "{len} entries"
        );
        let back: BTreeMap<u32, u64> = hardpack::from_slice(&bytes).unwrap();
        assert_eq!(back, expected);
    }
}

/// rmp-serde hands a bin to a type asking for a sequence as the sequence of its bytes (a
/// `Vec<u8>` without `serde_bytes` then reads what another language wrote as bytes); hardpack
/// reads the same, and requires every byte to be read, as it requires an array's elements.
#[test]
fn a_bin_reads_as_the_sequence_of_its_bytes_where_a_sequence_is_asked_for() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Message {
        id: u8,
        data: Vec<u8>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Rgb(u8, u8, u8);
    #[derive(Deserialize, Debug, PartialEq)]
    struct Point {
        x: u16,
        y: i8,
    }
    // [7, bin "abc"] as Python's msgpack writes a bytes field.
    let message = [0x92, 0x07, 0xc4, 0x03, b'a', b'b', b'c'];
    let expected = Message {
        id: 7,
        data: b"abc".to_vec(),
    };
    assert_eq!(hardpack::from_slice::<Message>(&message).unwrap(), expected);
    assert_eq!(
        rmp_serde::from_slice::<Message>(&message).unwrap(),
        expected
    );
    let rgb = [0xc4, 0x03, 1, 2, 3];
    assert_eq!(hardpack::from_slice::<Rgb>(&rgb).unwrap(), Rgb(1, 2, 3));
    assert_eq!(
        hardpack::from_slice::<(u8, u8, u8)>(&rgb).unwrap(),
        (1, 2, 3)
    );
    assert_eq!(rmp_serde::from_slice::<Rgb>(&rgb).unwrap(), Rgb(1, 2, 3));
    let point = [0xc4, 0x02, 0xff, 0x7f];
    assert_eq!(
        hardpack::from_slice::<Point>(&point).unwrap(),
        Point { x: 255, y: 127 }
    );
    assert_eq!(hardpack::from_slice::<Vec<u32>>(&[0xc4, 0x00]).unwrap(), []);
    // A byte the element type cannot hold, and bytes the type leaves unread, are refused
    // where the bin starts.
    let err = hardpack::from_slice::<(Point,)>(&[0x91, 0xc4, 0x02, 0x01, 0x80]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value: integer `128`, expected i8 at byte 1, depth 1"
    );
    let err = hardpack::from_slice::<Rgb>(&[0xc4, 0x04, 1, 2, 3, 4]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the bin has 1 bytes more than the type takes at byte 0, depth 0"
    );
    // Where bytes are asked for, a bin is still bytes.
    assert_eq!(
        hardpack::from_slice::<serde_bytes::ByteBuf>(&[0xc4, 0x01, 9]).unwrap(),
        [9]
    );
}

/// Each byte handed out is charged as an element of its type: a bin of 100,000 bytes into a
/// `Vec<u64>` is 800,000 bytes of elements.
#[test]
fn a_bin_read_as_a_sequence_charges_each_element() {
    use hardpack::{Decoder, Limit, Limits};
    let mut bin = vec![0xc6, 0x00, 0x01, 0x86, 0xa0];
    bin.resize(bin.len() + 100_000, 7);
    let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, 400_000));
    let err = tight.from_slice::<Vec<u64>>(&bin).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    let roomy = Decoder::new(Limits::default().with(Limit::AllocBytes, 1_000_000));
    let numbers = roomy.from_slice::<Vec<u64>>(&bin).unwrap();
    assert_eq!(numbers.len(), 100_000);
    assert!(numbers.iter().all(|&n| n == 7));
}
