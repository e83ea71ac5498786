//! The `tokio_util` codecs driven directly, as `FramedRead` and `FramedWrite` drive them:
//! values in pieces, end of stream with and without a value cut short, and encoding.

use bytes::BytesMut;
use hardpack::{stream::Codec, stream::TypedCodec, Decoder, Value};
use tokio_util::codec::{Decoder as _, Encoder as _};

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Ping {
    seq: u32,
    note: String,
}

#[test]
fn codec_encodes_values_by_reference_and_by_value() {
    let mut codec = Codec::new(Decoder::default());
    let value = Value::from_iter([("k", Value::from(vec![Value::from(1u8), Value::Nil]))]);
    let mut dst = BytesMut::from(&b"before"[..]);
    codec.encode(&value, &mut dst).unwrap();
    let once = hardpack::encode(&value).unwrap();
    assert_eq!(&dst[..6], b"before", "appended, not replaced");
    assert_eq!(&dst[6..], &once[..]);
    codec.encode(value, &mut dst).unwrap();
    assert_eq!(&dst[6 + once.len()..], &once[..]);
}

#[test]
fn codec_decodes_values_in_pieces_and_refuses_a_cut_one_at_the_end() {
    let mut codec = Codec::new(Decoder::default());
    let mut src = BytesMut::from(&[0x92, 0x01][..]);
    assert_eq!(codec.decode(&mut src).unwrap(), None);
    assert!(src.is_empty(), "taken into the stream decoder");
    src.extend_from_slice(&[0x02, 0xa1, b'x', 0x93]);
    let first = codec.decode(&mut src).unwrap().unwrap();
    assert_eq!(first.to_string(), "[1, 2]");
    assert_eq!(codec.decode_eof(&mut src).unwrap(), Some(Value::from("x")));
    let cut = codec.decode_eof(&mut src).unwrap_err();
    assert!(cut.is_incomplete(), "{cut}");
    let mut fresh = Codec::new(Decoder::default());
    let mut src = BytesMut::from(&[0xa1, b'x', 0xc3][..]);
    let at_eof = fresh.decode_eof(&mut src).unwrap().unwrap();
    assert_eq!(at_eof, Value::from("x"));
    assert_eq!(fresh.decode_eof(&mut src).unwrap(), Some(Value::Bool(true)));
    assert_eq!(fresh.decode_eof(&mut src).unwrap(), None, "nothing left");
}

#[test]
fn typed_codec_round_trips_and_refuses_a_cut_value_at_the_end() {
    let mut codec = TypedCodec::<Ping>::new(Decoder::default());
    let ping = Ping {
        seq: 7,
        note: "ünïcode".into(),
    };
    let mut wire = BytesMut::new();
    codec.encode(&ping, &mut wire).unwrap();
    assert_eq!(&wire[..], &hardpack::to_vec(&ping).unwrap()[..]);
    let whole = wire.clone();
    let mut src = BytesMut::from(&whole[..3]);
    assert_eq!(codec.decode(&mut src).unwrap(), None);
    src.extend_from_slice(&whole[3..]);
    assert_eq!(codec.decode(&mut src).unwrap(), Some(ping));
    let mut src = BytesMut::from(&whole[..]);
    let mut at_eof = TypedCodec::<Ping>::new(Decoder::default());
    assert!(at_eof.decode_eof(&mut src).unwrap().is_some());
    assert_eq!(at_eof.decode_eof(&mut src).unwrap(), None);
    let mut cut = TypedCodec::<Ping>::new(Decoder::default());
    let err = cut
        .decode_eof(&mut BytesMut::from(&whole[..whole.len() - 1]))
        .unwrap_err();
    assert!(err.is_incomplete(), "{err}");
}
