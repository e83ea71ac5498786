//! Values from an `io::Read`, read in bounded chunks through a [`StreamDecoder`].

use std::io::{BufRead, ErrorKind as IoErrorKind, Read};

use super::StreamDecoder;
use crate::decode::Decoder;
use crate::error::Error;
use crate::value::Value;

/// Bytes asked of the reader at a time.
const CHUNK: usize = 64 << 10;

/// An iterator over the values of a reader: see [`Decoder::read_values`].
#[derive(Debug)]
pub struct ReadValues<R> {
    reader: R,
    stream: StreamDecoder,
    chunk: Vec<u8>,
    done: bool,
}

impl Decoder {
    /// The values `reader` holds back to back, each decoded as soon as its bytes have been
    /// read (in chunks of at most 64 KiB; at most `max_buffer_bytes` held for a value that is
    /// still incomplete, see [`StreamDecoder`]). The iterator ends after the last value, or
    /// after the first error (an I/O error is an [`ErrorKind::Io`](crate::ErrorKind::Io)).
    ///
    /// ```
    /// let bytes = [0x01, 0x92, 0xc2, 0xc3, 0xa1, b'x'];
    /// let values: Result<Vec<_>, _> = hardpack::Decoder::default().read_values(&bytes[..]).collect();
    /// assert_eq!(values?.len(), 3);
    /// # Ok::<(), hardpack::Error>(())
    /// ```
    pub fn read_values<R: Read>(&self, reader: R) -> ReadValues<R> {
        ReadValues::new(reader, StreamDecoder::new(self.clone()))
    }
}

impl<R: Read> ReadValues<R> {
    /// The values of `reader`, through `stream` (for its buffer limit).
    pub fn new(reader: R, stream: StreamDecoder) -> Self {
        ReadValues {
            reader,
            stream,
            chunk: Vec::new(),
            done: false,
        }
    }

    /// The stream decoder: bytes consumed, peak bytes buffered.
    pub fn stream(&self) -> &StreamDecoder {
        &self.stream
    }

    /// Reads the next chunk into the stream; false at the end of the input.
    fn read_chunk(&mut self) -> Result<bool, Error> {
        if self.chunk.len() < CHUNK {
            self.chunk.resize(CHUNK, 0);
        }
        loop {
            match self.reader.read(&mut self.chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.stream.feed(self.chunk.get(..n).unwrap_or_default());
                    return Ok(true);
                }
                Err(e) if e.kind() == IoErrorKind::Interrupted => {}
                Err(e) => {
                    let at = self
                        .stream
                        .consumed()
                        .saturating_add(self.stream.held_bytes());
                    return Err(Error::io(&e, at));
                }
            }
        }
    }
}

impl<R: Read> Iterator for ReadValues<R> {
    type Item = Result<Value, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            match self.stream.next() {
                Ok(Some(value)) => return Some(Ok(value)),
                Ok(None) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
            match self.read_chunk() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    // Complete values were all taken above: anything held is cut short.
                    return self.stream.finish().err().map(Err);
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl<R: Read> core::iter::FusedIterator for ReadValues<R> {}

impl Decoder {
    /// Reads one value from `reader`, consuming exactly its bytes (what follows stays in the
    /// reader for the next call), under this decoder's limits and its default `max_buffer_bytes`.
    /// `Ok(None)` at the end of the input; an input that ends inside a value is an
    /// [`ErrorKind::UnexpectedEnd`](crate::ErrorKind::UnexpectedEnd). Error offsets count from
    /// where this call started reading.
    ///
    /// ```
    /// use std::io::BufReader;
    ///
    /// let bytes = [0x01, 0x92, 0xc2, 0xc3];
    /// let mut reader = BufReader::new(&bytes[..]);
    /// let decoder = hardpack::Decoder::default();
    /// assert_eq!(decoder.read_value(&mut reader)?, Some(hardpack::Value::from(1u8)));
    /// assert!(decoder.read_value(&mut reader)?.is_some());
    /// assert_eq!(decoder.read_value(&mut reader)?, None);
    /// # Ok::<(), hardpack::Error>(())
    /// ```
    pub fn read_value<R: BufRead>(&self, reader: &mut R) -> Result<Option<Value>, Error> {
        let mut stream = StreamDecoder::new(self.clone());
        let mut fed = 0usize;
        loop {
            let chunk = loop {
                match reader.fill_buf() {
                    Ok(chunk) => break chunk,
                    Err(e) if e.kind() == IoErrorKind::Interrupted => {}
                    Err(e) => return Err(Error::io(&e, fed)),
                }
            };
            if chunk.is_empty() {
                stream.finish()?;
                return stream.next();
            }
            let len = chunk.len();
            stream.feed(chunk);
            match stream.next() {
                Ok(Some(value)) => {
                    // Consume only this value's bytes of the chunk.
                    reader.consume(stream.consumed().saturating_sub(fed));
                    return Ok(Some(value));
                }
                Ok(None) => {
                    reader.consume(len);
                    fed = fed.saturating_add(len);
                }
                Err(e) => return Err(e),
            }
        }
    }
}
