//! The stream decoder: the values and the error of slice decoding, however the bytes are
//! split; hostile headers refused before their bodies are held; linear cost under one-byte
//! feeds; bounded buffering.

use std::time::{Duration, Instant};

use hardpack::{Decoder, Error, ErrorKind, Limit, Limits, StreamDecoder, Value};
use proptest::prelude::*;

mod common;
use common::{attacks, documents, Flaky};

/// An error as the tests compare it: kind, offset in the stream, depth.
type Verdict = (ErrorKind, usize, usize);

fn verdict(e: &Error, shift: usize) -> Verdict {
    (e.kind().clone(), e.offset() + shift, e.depth())
}

/// Slice decoding of `input`, value after value: the values, then the error if any.
fn sliced(decoder: &Decoder, input: &[u8]) -> (Vec<Value>, Option<Verdict>) {
    let mut values = Vec::new();
    let mut at = 0;
    while at < input.len() {
        match decoder.decode_prefix(&input[at..]) {
            Ok((value, len)) => {
                values.push(value);
                at += len;
            }
            Err(e) => return (values, Some(verdict(&e, at))),
        }
    }
    (values, None)
}

/// `input` fed to `stream` in pieces of the lengths `pieces` gives (cycled; the last piece
/// takes what is left), every value taken after each feed, then finished.
fn streamed(
    mut stream: StreamDecoder,
    input: &[u8],
    pieces: &[usize],
) -> (Vec<Value>, Option<Verdict>, StreamDecoder) {
    let mut values = Vec::new();
    let mut at = 0;
    let mut sizes = pieces.iter().copied().cycle();
    while at < input.len() {
        let len = sizes
            .next()
            .unwrap_or(input.len())
            .clamp(1, input.len() - at);
        stream.feed(&input[at..at + len]);
        at += len;
        loop {
            match stream.next() {
                Ok(Some(value)) => values.push(value),
                Ok(None) => break,
                Err(e) => return (values, Some(verdict(&e, 0)), stream),
            }
        }
    }
    if let Err(e) = stream.finish() {
        return (values, Some(verdict(&e, 0)), stream);
    }
    while let Some(value) = stream.next().expect("values complete at finish decode") {
        values.push(value);
    }
    (values, None, stream)
}

/// The stream gives slice decoding's values and error for `input` split every way we try.
fn agrees(decoder: &Decoder, input: &[u8]) {
    let expected = sliced(decoder, input);
    for pieces in [&[usize::MAX][..], &[1], &[2], &[3, 1], &[7], &[64, 1, 5]] {
        let stream = StreamDecoder::new(decoder.clone()).with_max_buffer_bytes(usize::MAX);
        let (values, error, _) = streamed(stream, input, pieces);
        assert_eq!(
            (&values, &error),
            (&expected.0, &expected.1),
            "pieces {pieces:?} of {} bytes",
            input.len()
        );
    }
}

#[test]
fn the_attacks_give_slice_decodings_verdicts_fed_whole_and_byte_by_byte() {
    let decoder = Decoder::default();
    for attack in attacks().iter().filter(|a| a.len() < 10_000) {
        agrees(&decoder, attack);
        agrees(&decoder.clone().strict(), attack);
        // Back to back with good values around it.
        let stream = [&[0x01, 0x91, 0xc0][..], attack, &[0xc3]].concat();
        agrees(&decoder, &stream);
    }
}

#[test]
fn several_values_back_to_back_in_every_split() {
    let docs: Vec<Vec<u8>> = (0u8..20)
        .map(|i| {
            hardpack::encode(&Value::from_iter([
                Value::from(i),
                Value::from("é"),
                Value::F64(0.5),
            ]))
            .unwrap()
        })
        .collect();
    agrees(&Decoder::default(), &docs.concat());
}

#[test]
fn a_4_gib_str_header_sent_alone_is_refused_at_the_header() {
    let header = [0xdb, 0xff, 0xff, 0xff, 0xff];
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&header);
    let e = stream.next().unwrap_err();
    assert_eq!(e.limit(), Some(Limit::StrLen));
    assert_eq!(e.offset(), 0);
    // Without a str limit, the buffer limit refuses it, still at the header.
    let mut stream =
        StreamDecoder::new(Decoder::new(Limits::unlimited())).with_max_buffer_bytes(1 << 20);
    stream.feed(&header);
    let e = stream.next().unwrap_err();
    assert_eq!(
        e.kind(),
        &ErrorKind::BufferLimit {
            max: 1 << 20,
            // The header and its body; a 32-bit target saturates at usize::MAX.
            needed: 5usize.saturating_add(0xffff_ffff)
        }
    );
    assert_eq!(
        stream.peak_buffered_bytes(),
        0,
        "nothing was held for the body"
    );
}

#[test]
fn a_value_longer_than_the_buffer_is_refused_however_it_arrives() {
    let doc = [&[0xd9, 100][..], &[b'a'; 100]].concat();
    for pieces in [&[usize::MAX][..], &[1], &[2]] {
        let stream = StreamDecoder::new(Decoder::default()).with_max_buffer_bytes(50);
        let (values, error, stream) = streamed(stream, &doc, pieces);
        assert!(values.is_empty());
        let (kind, offset, _) = error.expect("refused");
        assert!(
            matches!(kind, ErrorKind::BufferLimit { max: 50, .. }),
            "{kind:?}"
        );
        assert_eq!(offset, 0);
        assert!(stream.peak_buffered_bytes() <= 50);
    }
    // Byte by byte it is refused as soon as the header is whole, before the body.
    let mut stream = StreamDecoder::new(Decoder::default()).with_max_buffer_bytes(50);
    stream.feed(&doc[..1]);
    assert_eq!(stream.next(), Ok(None));
    stream.feed(&doc[1..2]);
    assert_eq!(
        stream.next().unwrap_err().kind(),
        &ErrorKind::BufferLimit {
            max: 50,
            needed: 102
        }
    );
}

#[test]
fn a_value_exactly_as_long_as_the_buffer_is_held_however_it_arrives() {
    let doc = [&[0xd9, 100][..], &[b'a'; 100]].concat();
    for pieces in [&[usize::MAX][..], &[1], &[7]] {
        let exact = StreamDecoder::new(Decoder::default()).with_max_buffer_bytes(doc.len());
        let (values, error, _) = streamed(exact, &doc, pieces);
        assert_eq!((values.len(), error), (1, None), "{pieces:?}");
        let short = StreamDecoder::new(Decoder::default()).with_max_buffer_bytes(doc.len() - 1);
        let (values, error, _) = streamed(short, &doc, pieces);
        assert!(values.is_empty());
        let expected = ErrorKind::BufferLimit {
            max: doc.len() - 1,
            needed: doc.len(),
        };
        assert_eq!(error, Some((expected, 0, 0)), "{pieces:?}");
    }
}

#[test]
fn a_long_array_fed_a_byte_at_a_time_is_framed_once_not_again_on_every_byte() {
    // 100,000 two-byte elements: once half the bytes are in, the header's claim (a byte an
    // element) no longer shows the array incomplete, and only reading its elements does.
    // Reading them again from the start on every byte would be ~10^10 element reads;
    // framing on from where the last byte left off reads each byte once.
    let n: u32 = 100_000;
    let mut doc = vec![0xdd];
    doc.extend_from_slice(&n.to_be_bytes());
    for _ in 0..n {
        doc.extend([0xcc, 0xff]);
    }
    let mut stream = StreamDecoder::new(Decoder::default());
    let started = Instant::now();
    for (at, byte) in doc.iter().enumerate() {
        stream.feed(std::slice::from_ref(byte));
        let got = stream.next().unwrap();
        assert_eq!(got.is_some(), at + 1 == doc.len());
        // Generous: linear work takes well under a second even in a debug build.
        assert!(started.elapsed() < Duration::from_secs(60), "at byte {at}");
    }
}

#[test]
fn a_huge_array_header_waits_for_its_children_within_the_buffer_limit() {
    // 1,000,000 elements claimed: each needs a byte, so the stream must hold a megabyte.
    let header = [0xdd, 0x00, 0x0f, 0x42, 0x40];
    let mut stream = StreamDecoder::new(Decoder::default()).with_max_buffer_bytes(64 << 10);
    stream.feed(&header);
    let e = stream.next().unwrap_err();
    assert_eq!(
        e.kind(),
        &ErrorKind::BufferLimit {
            max: 64 << 10,
            needed: 5 + 1_000_000
        }
    );
}

#[test]
fn one_byte_slowloris_of_a_16_mib_str_costs_linear_time_and_holds_only_the_value() {
    let len = 16 << 20;
    let mut doc = vec![0xdb];
    doc.extend_from_slice(&(len as u32).to_be_bytes());
    doc.extend(std::iter::repeat_n(b'x', len));
    let mut stream = StreamDecoder::new(Decoder::default());
    let started = Instant::now();
    let mut got = None;
    for byte in &doc {
        stream.feed(std::slice::from_ref(byte));
        if let Some(value) = stream.next().unwrap() {
            got = Some(value);
        }
    }
    stream.finish().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(got.and_then(|v| v.as_str().map(str::len)), Some(len));
    assert!(stream.peak_buffered_bytes() < doc.len());
    assert!(stream.peak_buffered_bytes() <= stream.max_buffer_bytes());
    // Quadratic work (re-reading what is held on each byte) would be ~10^14 byte reads;
    // linear work is done in seconds even in a debug build.
    assert!(elapsed < Duration::from_secs(120), "{elapsed:?}");
}

#[test]
fn a_stream_of_a_million_empty_arrays() {
    let doc = vec![0x90u8; 1_000_000];
    for pieces in [&[64 << 10][..], &[1]] {
        let stream = StreamDecoder::new(Decoder::default());
        let (values, error, stream) = streamed(stream, &doc, pieces);
        assert_eq!(error, None);
        assert_eq!(values.len(), 1_000_000);
        assert_eq!(stream.consumed(), doc.len());
        // Each value is one byte: the decoder never waits on more than a piece.
        assert!(
            stream.peak_buffered_bytes() <= 1,
            "{}",
            stream.peak_buffered_bytes()
        );
    }
}

#[test]
fn after_an_error_the_stream_stays_failed_and_what_was_returned_is_kept() {
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&[0x01, 0xc1, 0x02]);
    assert_eq!(stream.next(), Ok(Some(Value::from(1u8))));
    let e = stream.next().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&ErrorKind::ReservedMarker, 1));
    stream.feed(&[0x03]);
    assert_eq!(
        stream.held_bytes(),
        0,
        "bytes fed after the error are not kept"
    );
    assert_eq!(stream.next(), Err(e.clone()));
    assert_eq!(stream.finish(), Err(e));
    assert_eq!(stream.consumed(), 1);
}

#[test]
fn bytes_fed_after_finish_are_ignored() {
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&[0x01]);
    stream.finish().unwrap();
    stream.feed(&[0x02]);
    assert_eq!(stream.held_bytes(), 1);
    assert_eq!(stream.next(), Ok(Some(Value::from(1u8))));
    assert_eq!(stream.next(), Ok(None));
    assert_eq!(stream.consumed(), 1);
}

#[test]
fn the_default_buffer_is_the_longest_payload_the_limits_allow_and_a_margin() {
    assert_eq!(hardpack::stream::BUFFER_MARGIN, 64 << 10);
    let limits = Limits::default()
        .with(Limit::StrLen, 1000)
        .with(Limit::BinLen, 3000)
        .with(Limit::ExtLen, 2000);
    let decoder = Decoder::new(limits.clone());
    assert_eq!(decoder.default_max_buffer_bytes(), 3000 + (64 << 10));
    let stream = StreamDecoder::new(decoder);
    assert_eq!(stream.max_buffer_bytes(), 3000 + (64 << 10));
    assert_eq!(stream.decoder().limits(), &limits);
    let ext = Decoder::new(
        Limits::default()
            .with(Limit::StrLen, 0)
            .with(Limit::BinLen, 0)
            .with(Limit::ExtLen, 5),
    );
    assert_eq!(ext.default_max_buffer_bytes(), 5 + (64 << 10));
}

#[test]
fn a_stream_waiting_on_a_value_says_so_in_its_debug_form() {
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&[0x92, 0x01]);
    assert_eq!(stream.next(), Ok(None));
    let shown = format!("{stream:?}");
    assert!(
        shown.contains("framing: Some(Framing { typed: false, .. })"),
        "{shown}"
    );
}

#[test]
fn a_stream_cut_inside_a_value_is_an_unexpected_end_at_finish() {
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&[0xc3, 0x93, 0x01]);
    assert_eq!(stream.next(), Ok(Some(Value::Bool(true))));
    assert_eq!(stream.next(), Ok(None), "incomplete is not invalid");
    assert_eq!((stream.held_bytes(), stream.peak_buffered_bytes()), (2, 2));
    let e = stream.finish().unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.depth()),
        (&ErrorKind::UnexpectedEnd { needed: 2 }, 1, 0)
    );
}

#[test]
fn values_from_a_reader_in_chunks() {
    let values: Vec<Value> = (0..50_000u32).map(Value::from).collect();
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| hardpack::encode(v).unwrap())
        .collect();
    let read: Result<Vec<Value>, Error> = Decoder::default().read_values(&bytes[..]).collect();
    assert_eq!(read.unwrap(), values);
    // A reader that ends inside a value.
    let read: Vec<Result<Value, Error>> = Decoder::default()
        .read_values(&[0x01, 0x92, 0x01][..])
        .collect();
    assert_eq!(read.len(), 2);
    assert_eq!(read[1].as_ref().unwrap_err().needed(), Some(1));
}

#[test]
fn an_interrupted_read_is_retried_and_a_failed_one_is_an_io_error_where_it_happened() {
    let values = [
        Value::from(1u8),
        Value::from("hi"),
        Value::from_iter([Value::Bool(true)]),
    ];
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| hardpack::encode(v).unwrap())
        .collect();
    let decoder = Decoder::default();
    let read: Result<Vec<Value>, Error> = decoder.read_values(Flaky::new(&bytes, None)).collect();
    assert_eq!(read.unwrap(), values);
    let mut reader = Flaky::new(&bytes, None);
    for value in &values {
        assert_eq!(
            decoder.read_value(&mut reader).as_ref(),
            Ok(&Some(value.clone()))
        );
    }
    assert_eq!(decoder.read_value(&mut reader), Ok(None));
    // [1, then a cut array: the reader fails after the fourth byte.
    let cut = [0x01, 0x92, 0x01, 0xa1];
    let socket_closed = ErrorKind::Io {
        message: "the socket closed".into(),
    };
    let read: Vec<Result<Value, Error>> = decoder
        .read_values(Flaky::new(&cut, Some(std::io::ErrorKind::ConnectionReset)))
        .collect();
    assert_eq!(read.len(), 2);
    assert_eq!(read[0], Ok(Value::from(1u8)));
    let e = read[1].as_ref().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&socket_closed, 4));
    let mut reader = Flaky::new(&cut, Some(std::io::ErrorKind::ConnectionReset));
    assert_eq!(decoder.read_value(&mut reader), Ok(Some(Value::from(1u8))));
    let e = decoder.read_value(&mut reader).unwrap_err();
    // Offsets count from where this call started reading.
    assert_eq!((e.kind(), e.offset()), (&socket_closed, 3));
}

#[test]
fn read_value_consumes_exactly_one_value() {
    use std::io::{BufReader, Read};
    let bytes = [0x92, 0x01, 0x02, 0xa1, b'z', 0xff];
    // A tiny BufReader: values straddle its refills.
    let mut reader = BufReader::with_capacity(2, &bytes[..]);
    let decoder = Decoder::default();
    assert_eq!(
        decoder
            .read_value(&mut reader)
            .unwrap()
            .unwrap()
            .to_string(),
        "[1, 2]"
    );
    assert_eq!(
        decoder.read_value(&mut reader).unwrap(),
        Some(Value::from("z"))
    );
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, [0xff]);
}

#[cfg(feature = "serde")]
#[test]
fn typed_values_as_they_arrive() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Point {
        x: i32,
        name: String,
    }
    let bytes = [
        hardpack::to_vec(&(1, "a")).unwrap(),
        hardpack::to_vec(&(-2, "bé")).unwrap(),
    ]
    .concat();
    let mut stream = StreamDecoder::new(Decoder::default());
    let mut points = Vec::new();
    for byte in &bytes {
        stream.feed(std::slice::from_ref(byte));
        while let Some(point) = stream.next_as::<Point>().unwrap() {
            points.push(point);
        }
    }
    stream.finish().unwrap();
    assert_eq!(
        points,
        [
            Point {
                x: 1,
                name: "a".into()
            },
            Point {
                x: -2,
                name: "bé".into()
            }
        ]
    );
}

#[cfg(feature = "serde")]
#[test]
fn a_typed_value_of_the_wrong_shape_is_refused_before_it_arrives_whole() {
    type Five = (u8, u8, u8, u8, u8);
    // Five elements claimed, four arrived, the first a str where a u8 is expected: wrong
    // whatever follows, so refused now, at the str.
    let bytes = [0x95, 0xa1, b'x', 0x01, 0x02, 0x03];
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&bytes);
    let e = stream.next_as::<Five>().unwrap_err();
    assert_eq!((e.offset(), e.depth()), (1, 1));
    assert!(e.to_string().contains("invalid type"), "{e}");
    // Bytes that fit the type so far only wait for the rest.
    let mut stream = StreamDecoder::new(Decoder::default());
    stream.feed(&[0x95, 0x01, 0x02, 0x03, 0x04]);
    assert_eq!(stream.next_as::<Five>(), Ok(None));
    stream.feed(&[0x05]);
    assert_eq!(stream.next_as::<Five>(), Ok(Some((1, 2, 3, 4, 5))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_streams_agree_with_slice_decoding(doc in documents(), split in 1usize..9) {
        let decoder = Decoder::default();
        let expected = sliced(&decoder, &doc);
        let stream = StreamDecoder::new(decoder).with_max_buffer_bytes(usize::MAX);
        let (values, error, _) = streamed(stream, &doc, &[split]);
        prop_assert_eq!((values, error), expected);
    }
}

#[test]
fn a_str_of_invalid_utf8_fed_in_pieces_is_replaced_under_the_replace_policy() {
    // ["a\xffb"]: the value arrives in pieces, so the framer, not the slice decoder, reads it.
    let input = [0x91, 0xa3, b'a', 0xff, b'b'];
    let decoder = Decoder::default().with_invalid_utf8(hardpack::decode::InvalidUtf8::Replace);
    let whole = decoder.decode(&input).expect("replaced");
    let mut stream = StreamDecoder::new(decoder);
    for byte in input {
        assert_eq!(stream.next().expect("incomplete, not an error"), None);
        stream.feed(&[byte]);
    }
    assert_eq!(stream.next().expect("replaced"), Some(whole));
    // The default policy refuses the same input.
    let refused = Decoder::default().decode(&input).expect_err("refused");
    assert_eq!(refused.kind(), &ErrorKind::InvalidUtf8 { valid_up_to: 1 });
}
