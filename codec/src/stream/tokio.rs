//! `tokio_util::codec` adapters over [`StreamDecoder`]: `FramedRead` over a socket yields
//! values under the decoder's limits and the stream's buffer limit.

use bytes::BytesMut;
use tokio_util::codec::{Decoder as FrameDecoder, Encoder};

use super::StreamDecoder;
use crate::decode::Decoder;
use crate::error::Error;
use crate::value::Value;

/// A codec for `FramedRead`/`FramedWrite`: decodes [`Value`]s with a [`StreamDecoder`]
/// (each byte read once into its buffer, a value refused at its header when it could not
/// fit), encodes [`Value`]s. After a decode error the stream is failed (see
/// [`StreamDecoder`]): the connection should be closed.
///
/// ```
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = hardpack::stream::Codec::new(hardpack::Decoder::default());
/// let mut bytes = bytes::BytesMut::from(&[0x92, 0x01][..]);
/// assert_eq!(codec.decode(&mut bytes)?, None); // waits for the rest
/// bytes.extend_from_slice(&[0x02]);
/// assert_eq!(codec.decode(&mut bytes)?.map(|v| v.to_string()), Some("[1, 2]".into()));
/// # Ok::<(), hardpack::Error>(())
/// ```
#[derive(Debug)]
pub struct Codec {
    stream: StreamDecoder,
}

impl Codec {
    /// A codec decoding with `decoder`, holding at most the default `max_buffer_bytes`.
    pub fn new(decoder: Decoder) -> Self {
        Codec::with_stream(StreamDecoder::new(decoder))
    }

    /// A codec over a configured stream decoder.
    pub fn with_stream(stream: StreamDecoder) -> Self {
        Codec { stream }
    }

    /// The stream decoder: bytes consumed, peak bytes held.
    pub fn stream(&self) -> &StreamDecoder {
        &self.stream
    }

    /// Moves what arrived into the stream decoder (the frame buffer is left empty, so the
    /// only bytes held are the stream's, under its limit).
    fn take(&mut self, src: &mut BytesMut) {
        self.stream.feed(src);
        src.clear();
    }
}

impl From<std::io::Error> for Error {
    /// An I/O error of a framed transport (which knows no offset: 0).
    fn from(e: std::io::Error) -> Self {
        Error::io(&e, 0)
    }
}

impl FrameDecoder for Codec {
    type Item = Value;
    type Error = Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Value>, Error> {
        self.take(src);
        self.stream.next()
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Value>, Error> {
        self.take(src);
        if let Some(value) = self.stream.next()? {
            return Ok(Some(value));
        }
        self.stream.finish()?;
        self.stream.next()
    }
}

impl Encoder<&Value> for Codec {
    type Error = std::io::Error;

    fn encode(&mut self, value: &Value, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        let bytes = crate::encode(value)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        dst.extend_from_slice(&bytes);
        Ok(())
    }
}

impl Encoder<Value> for Codec {
    type Error = std::io::Error;

    fn encode(&mut self, value: Value, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        self.encode(&value, dst)
    }
}

/// [`Codec`] for typed values: decodes each value as a `T` (see
/// [`StreamDecoder::next_as`]), encodes any `Serialize` with [`to_vec`](crate::to_vec).
#[cfg(feature = "serde")]
pub struct TypedCodec<T> {
    stream: StreamDecoder,
    _values: core::marker::PhantomData<fn() -> T>,
}

#[cfg(feature = "serde")]
impl<T> TypedCodec<T> {
    /// A codec decoding `T`s with `decoder`.
    pub fn new(decoder: Decoder) -> Self {
        TypedCodec {
            stream: StreamDecoder::new(decoder),
            _values: core::marker::PhantomData,
        }
    }
}

#[cfg(feature = "serde")]
impl<T: serde::de::DeserializeOwned> FrameDecoder for TypedCodec<T> {
    type Item = T;
    type Error = Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<T>, Error> {
        self.stream.feed(src);
        src.clear();
        self.stream.next_as()
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<T>, Error> {
        if let Some(value) = self.decode(src)? {
            return Ok(Some(value));
        }
        self.stream.finish()?;
        self.stream.next_as()
    }
}

#[cfg(feature = "serde")]
impl<T, S: serde::Serialize> Encoder<S> for TypedCodec<T> {
    type Error = std::io::Error;

    fn encode(&mut self, value: S, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        let bytes = crate::to_vec(&value)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        dst.extend_from_slice(&bytes);
        Ok(())
    }
}
