//! A reference decoder written from the MessagePack specification and hardpack's documented
//! limits, sharing no decoding code with the codec: slow, recursive (its inputs are bounded),
//! obviously correct. It is the judge of the codec's verdicts: the value, or the error's
//! kind, offset, depth and `needed`. It models every limit but the allocation budget (whose
//! charges are the codec's own bookkeeping), and the `InvalidUtf8::Reject` policy.
//!
//! The documented semantics it encodes:
//! - an error is about the item it is found in: its offset is where that item starts, its
//!   depth the containers open around it;
//! - a header's fields are read in order (marker, length, ext type); `needed` for input that
//!   ends inside a field is the bytes that field lacks, plus one byte for every item the open
//!   containers still expect after this one;
//! - a str, bin or ext length is checked against its limit before its body is read; a str's
//!   body is then checked as UTF-8; an ext of type -1 must be a timestamp (4, 8 or 12 bytes,
//!   nanoseconds <= 999,999,999);
//! - an array or map length is checked against its limit, then against the room left (each
//!   child, and each item the open containers still expect, needs a byte: short of that it is
//!   `UnexpectedEnd` with the shortfall as `needed`, at the container), then the depth (the
//!   container would be at one more than the containers open around it).

use hardpack::{
    error::TimestampError, timestamp::Timestamp, value::Ext, ErrorKind, Limit, Limits, Value,
};

/// The model's error: what the codec's `Error` must equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    pub kind: ErrorKind,
    pub offset: usize,
    pub depth: usize,
}

struct Model<'a> {
    input: &'a [u8],
    at: usize,
    limits: &'a Limits,
}

/// The value at the start of `input` and the bytes it took, as the specification says.
pub fn decode_prefix(input: &[u8], limits: &Limits) -> Result<(Value, usize), ModelError> {
    let mut model = Model {
        input,
        at: 0,
        limits,
    };
    let value = model.item(0, 0)?;
    Ok((value, model.at))
}

/// The one value `input` holds; bytes after it are an error.
pub fn decode(input: &[u8], limits: &Limits) -> Result<Value, ModelError> {
    let (value, len) = decode_prefix(input, limits)?;
    if len < input.len() {
        return Err(ModelError {
            kind: ErrorKind::TrailingBytes {
                count: input.len() - len,
            },
            offset: len,
            depth: 0,
        });
    }
    Ok(value)
}

impl Model<'_> {
    fn left(&self) -> usize {
        self.input.len() - self.at
    }

    /// `n` bytes of the field being read, or `UnexpectedEnd` for the item at `start`.
    fn take(
        &mut self,
        n: usize,
        start: usize,
        depth: usize,
        after: usize,
    ) -> Result<&[u8], ModelError> {
        if self.left() < n {
            return Err(ModelError {
                kind: ErrorKind::UnexpectedEnd {
                    needed: n - self.left() + after,
                },
                offset: start,
                depth,
            });
        }
        let bytes = &self.input[self.at..self.at + n];
        self.at += n;
        Ok(bytes)
    }

    fn number(
        &mut self,
        n: usize,
        start: usize,
        depth: usize,
        after: usize,
    ) -> Result<u64, ModelError> {
        let bytes = self.take(n, start, depth, after)?;
        Ok(bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
    }

    fn limit(
        &self,
        limit: Limit,
        claimed: usize,
        start: usize,
        depth: usize,
    ) -> Result<(), ModelError> {
        let max = self.limits.get(limit);
        if claimed > max {
            return Err(ModelError {
                kind: ErrorKind::LimitExceeded {
                    limit,
                    max,
                    claimed,
                },
                offset: start,
                depth,
            });
        }
        Ok(())
    }

    /// One item at `depth` (containers open around it), with `after` items still expected
    /// after it by those containers.
    fn item(&mut self, depth: usize, after: usize) -> Result<Value, ModelError> {
        let start = self.at;
        let m = self.number(1, start, depth, after)? as u8;
        let err = |kind| ModelError {
            kind,
            offset: start,
            depth,
        };
        match m {
            0x00..=0x7f => Ok(Value::from(m)),
            0xe0..=0xff => Ok(Value::from(i64::from(m as i8))),
            0x80..=0x8f => self.container(true, usize::from(m & 0x0f), start, depth, after),
            0x90..=0x9f => self.container(false, usize::from(m & 0x0f), start, depth, after),
            0xa0..=0xbf => self.str(usize::from(m & 0x1f), start, depth, after),
            0xc0 => Ok(Value::Nil),
            0xc1 => Err(err(ErrorKind::ReservedMarker)),
            0xc2 => Ok(Value::Bool(false)),
            0xc3 => Ok(Value::Bool(true)),
            0xc4..=0xc6 => {
                let len = self.number(1 << (m - 0xc4), start, depth, after)? as usize;
                self.limit(Limit::BinLen, len, start, depth)?;
                let body = self.take(len, start, depth, after)?;
                Ok(Value::Bin(body.to_vec().into()))
            }
            0xc7..=0xc9 => {
                let len = self.number(1 << (m - 0xc7), start, depth, after)? as usize;
                self.ext(len, start, depth, after)
            }
            0xca => {
                let bits = self.number(4, start, depth, after)? as u32;
                Ok(Value::F32(f32::from_bits(bits)))
            }
            0xcb => Ok(Value::F64(f64::from_bits(
                self.number(8, start, depth, after)?,
            ))),
            0xcc..=0xcf => Ok(Value::from(self.number(
                1 << (m - 0xcc),
                start,
                depth,
                after,
            )?)),
            0xd0..=0xd3 => {
                let width = 1usize << (m - 0xd0);
                let raw = self.number(width, start, depth, after)?;
                // Sign-extend from the width.
                let shift = 64 - 8 * width as u32;
                Ok(Value::from(((raw << shift) as i64) >> shift))
            }
            0xd4..=0xd8 => self.ext(1 << (m - 0xd4), start, depth, after),
            0xd9..=0xdb => {
                let len = self.number(1 << (m - 0xd9), start, depth, after)? as usize;
                self.str(len, start, depth, after)
            }
            0xdc | 0xdd => {
                let n = self.number(2 << (m - 0xdc), start, depth, after)? as usize;
                self.container(false, n, start, depth, after)
            }
            0xde | 0xdf => {
                let n = self.number(2 << (m - 0xde), start, depth, after)? as usize;
                self.container(true, n, start, depth, after)
            }
        }
    }

    fn str(
        &mut self,
        len: usize,
        start: usize,
        depth: usize,
        after: usize,
    ) -> Result<Value, ModelError> {
        self.limit(Limit::StrLen, len, start, depth)?;
        let body = self.take(len, start, depth, after)?;
        match std::str::from_utf8(body) {
            Ok(text) => Ok(Value::from(text)),
            Err(e) => Err(ModelError {
                kind: ErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
                offset: start,
                depth,
            }),
        }
    }

    fn ext(
        &mut self,
        len: usize,
        start: usize,
        depth: usize,
        after: usize,
    ) -> Result<Value, ModelError> {
        let ext_type = self.number(1, start, depth, after)? as u8 as i8;
        self.limit(Limit::ExtLen, len, start, depth)?;
        let data = self.take(len, start, depth, after)?.to_vec();
        if ext_type != -1 {
            return Ok(Value::Ext(Ext::new(ext_type, &data)));
        }
        let bad = |e| ModelError {
            kind: ErrorKind::InvalidTimestamp(e),
            offset: start,
            depth,
        };
        let be = |bytes: &[u8]| bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
        let (seconds, nanos) = match data.len() {
            4 => (be(&data) as i64, 0u32),
            8 => {
                let raw = be(&data);
                ((raw & ((1 << 34) - 1)) as i64, (raw >> 34) as u32)
            }
            12 => (be(&data[4..]) as i64, be(&data[..4]) as u32),
            n => return Err(bad(TimestampError::Length(n))),
        };
        // The specification's rule, checked here: the codec's own check (in Timestamp::new)
        // is what this model verifies, not what it relies on.
        if nanos > 999_999_999 {
            return Err(bad(TimestampError::Nanoseconds(nanos)));
        }
        let ts = Timestamp::new(seconds, nanos).unwrap_or_else(|| {
            panic!("Timestamp::new refused {nanos} nanoseconds, which are valid")
        });
        Ok(Value::Timestamp(ts))
    }

    fn container(
        &mut self,
        is_map: bool,
        n: usize,
        start: usize,
        depth: usize,
        after: usize,
    ) -> Result<Value, ModelError> {
        let limit = if is_map {
            Limit::MapLen
        } else {
            Limit::ArrayLen
        };
        self.limit(limit, n, start, depth)?;
        let children = if is_map { 2 * n } else { n };
        if children + after > self.left() {
            return Err(ModelError {
                kind: ErrorKind::UnexpectedEnd {
                    needed: children + after - self.left(),
                },
                offset: start,
                depth,
            });
        }
        self.limit(Limit::Depth, depth + 1, start, depth)?;
        if is_map {
            let mut entries = Vec::with_capacity(n);
            for i in 0..n {
                let rest = 2 * (n - 1 - i) + after;
                let key = self.item(depth + 1, rest + 1)?;
                let value = self.item(depth + 1, rest)?;
                entries.push((key, value));
            }
            Ok(Value::from(entries))
        } else {
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                items.push(self.item(depth + 1, n - 1 - i + after)?);
            }
            Ok(Value::from(items))
        }
    }
}
