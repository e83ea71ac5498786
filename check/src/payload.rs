//! One hostile input, named for what it is and where it hits.

use std::fmt;
use std::io::{self, Write};
use std::sync::OnceLock;

/// One hostile input: its bytes, a stable id (a file name: `bomb-arrays-129`,
/// `Request.params.array32-max`) and what it does in words (`129 nested arrays of one
/// element`, `Request.params: array 32 claiming 4294967295 elements`).
#[derive(Clone, PartialEq, Eq)]
pub struct Payload {
    /// Stable across runs and usable as a file name.
    pub id: String,
    /// Where it hits and how, for a person.
    pub what: String,
    /// The MessagePack (or deliberately not MessagePack) bytes.
    pub bytes: PayloadBytes,
    /// The place of the type (or of a sample) it attacks, as its id names it
    /// (`Request.params`); `None` for one that attacks the whole document.
    pub place: Option<String>,
    /// Where the attack starts in `bytes`: a refusal at or after it got to the place.
    pub offset: Option<usize>,
    /// For a valid document: the places it holds. Decoded, it shows the decoder gets to
    /// each of them, so a refusal of an attack there is the place's own.
    pub reaches: Vec<String>,
}

impl Payload {
    /// A payload.
    pub fn new(
        id: impl Into<String>,
        what: impl Into<String>,
        bytes: impl Into<PayloadBytes>,
    ) -> Self {
        Payload {
            id: id.into(),
            what: what.into(),
            bytes: bytes.into(),
            place: None,
            offset: None,
            reaches: Vec::new(),
        }
    }

    /// Its id as a file name: each character other than an ASCII letter, digit, `-`, `_` or
    /// `.` replaced by `_`.
    pub fn file_name(&self) -> String {
        self.id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }

    /// The payload, attacking `place` from byte `offset` on.
    pub fn at_place(mut self, place: impl Into<String>, offset: usize) -> Self {
        self.place = Some(place.into());
        self.offset = Some(offset);
        self
    }
}

impl fmt::Debug for Payload {
    /// The id, what it does and its size; the first bytes in hex (a bomb can be megabytes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.bytes.head(16);
        write!(
            f,
            "{} ({}, {} bytes: {:02x?}{})",
            self.id,
            self.what,
            self.bytes.len(),
            shown,
            if shown.len() < self.bytes.len() {
                "..."
            } else {
                ""
            }
        )
    }
}

/// A payload's bytes, kept as the pieces they are made of. A bomb of 16 MiB is a few bytes
/// repeated: a check writes its payloads to its children piece by piece and never builds
/// one whole, which for a type with hundreds of places is tens of gigabytes not copied.
/// [`as_slice`](Self::as_slice) (and `Deref`) builds the whole once, where it is needed.
#[derive(Default)]
pub struct PayloadBytes {
    pieces: Vec<Piece>,
    len: usize,
    whole: OnceLock<Vec<u8>>,
}

#[derive(Clone)]
enum Piece {
    Bytes(Vec<u8>),
    Repeat { unit: Vec<u8>, times: usize },
}

/// What a repeated piece is written in: enough copies of its unit to make this many bytes.
const WRITE_CHUNK: usize = 64 << 10;

impl PayloadBytes {
    /// `unit` `times` over.
    pub fn repeat(unit: &[u8], times: usize) -> Self {
        PayloadBytes::default().then_repeat(unit, times)
    }

    /// These bytes, then `more`.
    pub fn then(mut self, more: impl Into<PayloadBytes>) -> Self {
        let more = more.into();
        self.len += more.len;
        for piece in more.pieces {
            self.push(piece);
        }
        self.whole = OnceLock::new();
        self
    }

    /// These bytes, then `unit` `times` over.
    pub fn then_repeat(mut self, unit: &[u8], times: usize) -> Self {
        self.len += unit.len().saturating_mul(times);
        self.push(Piece::Repeat {
            unit: unit.to_vec(),
            times,
        });
        self.whole = OnceLock::new();
        self
    }

    fn push(&mut self, piece: Piece) {
        match piece {
            Piece::Repeat { unit, times } if unit.len().saturating_mul(times) <= WRITE_CHUNK => {
                self.push(Piece::Bytes(unit.repeat(times)))
            }
            Piece::Bytes(more) => match self.pieces.last_mut() {
                Some(Piece::Bytes(last)) => last.extend_from_slice(&more),
                _ if more.is_empty() => {}
                _ => self.pieces.push(Piece::Bytes(more)),
            },
            repeat => self.pieces.push(repeat),
        }
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `n` bytes (or all, if fewer), without building the whole.
    pub fn head(&self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n.min(self.len));
        for piece in &self.pieces {
            let left = n - out.len();
            if left == 0 {
                break;
            }
            match piece {
                Piece::Bytes(bytes) => out.extend_from_slice(&bytes[..bytes.len().min(left)]),
                Piece::Repeat { unit, times } => {
                    out.extend(unit.iter().cycle().take((unit.len() * times).min(left)))
                }
            }
        }
        out
    }

    /// The pieces in order, each as a unit and how many times it is repeated.
    pub(crate) fn pieces(&self) -> impl Iterator<Item = (&[u8], usize)> {
        self.pieces.iter().map(|piece| match piece {
            Piece::Bytes(bytes) => (&bytes[..], 1),
            Piece::Repeat { unit, times } => (&unit[..], *times),
        })
    }

    /// Writes the bytes to `out` piece by piece.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        if let Some(whole) = self.whole.get() {
            return out.write_all(whole);
        }
        for piece in &self.pieces {
            match piece {
                Piece::Bytes(bytes) => out.write_all(bytes)?,
                Piece::Repeat { unit, times } => {
                    let per_chunk = (WRITE_CHUNK / unit.len().max(1)).max(1);
                    let chunk = unit.repeat(per_chunk.min(*times));
                    let mut left = *times;
                    while left >= per_chunk {
                        out.write_all(&chunk)?;
                        left -= per_chunk;
                    }
                    out.write_all(&chunk[..left * unit.len()])?;
                }
            }
        }
        Ok(())
    }

    /// Writes the bytes to a file at `path` (created or truncated) piece by piece.
    pub fn write_file(&self, path: impl AsRef<std::path::Path>) -> io::Result<()> {
        let mut file = io::BufWriter::new(std::fs::File::create(path)?);
        self.write_to(&mut file)?;
        file.flush()
    }

    /// The whole, built the first time it is asked for.
    pub fn as_slice(&self) -> &[u8] {
        self.whole.get_or_init(|| {
            let mut whole = Vec::with_capacity(self.len);
            // Writing to a `Vec` cannot fail.
            let _ = self.write_to(&mut whole);
            whole
        })
    }

    /// The whole, as a vector of its own.
    pub fn into_vec(self) -> Vec<u8> {
        match self.whole.into_inner() {
            Some(whole) => whole,
            None => {
                let mut whole = Vec::with_capacity(self.len);
                let _ = PayloadBytes {
                    pieces: self.pieces,
                    len: self.len,
                    whole: OnceLock::new(),
                }
                .write_to(&mut whole);
                whole
            }
        }
    }
}

impl Clone for PayloadBytes {
    fn clone(&self) -> Self {
        PayloadBytes {
            pieces: self.pieces.clone(),
            len: self.len,
            whole: OnceLock::new(),
        }
    }
}

impl std::ops::Deref for PayloadBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for PayloadBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Vec<u8>> for PayloadBytes {
    fn from(bytes: Vec<u8>) -> Self {
        let mut out = PayloadBytes {
            len: bytes.len(),
            ..PayloadBytes::default()
        };
        out.push(Piece::Bytes(bytes));
        out
    }
}

impl From<&[u8]> for PayloadBytes {
    fn from(bytes: &[u8]) -> Self {
        PayloadBytes::from(bytes.to_vec())
    }
}

impl<const N: usize> From<&[u8; N]> for PayloadBytes {
    fn from(bytes: &[u8; N]) -> Self {
        PayloadBytes::from(bytes.to_vec())
    }
}

impl From<PayloadBytes> for Vec<u8> {
    fn from(bytes: PayloadBytes) -> Self {
        bytes.into_vec()
    }
}

impl PartialEq for PayloadBytes {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.as_slice() == other.as_slice()
    }
}

impl Eq for PayloadBytes {}

impl PartialEq<[u8]> for PayloadBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.len == other.len() && self.as_slice() == other
    }
}

impl PartialEq<Vec<u8>> for PayloadBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self == other.as_slice()
    }
}

impl fmt::Debug for PayloadBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.head(16);
        write!(
            f,
            "{} bytes: {shown:02x?}{}",
            self.len,
            if shown.len() < self.len { "..." } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(bytes: &PayloadBytes) -> Vec<u8> {
        let mut out = Vec::new();
        bytes.write_to(&mut out).unwrap();
        out
    }

    #[test]
    fn pieces_write_what_they_stand_for() {
        let bytes = PayloadBytes::from(vec![0xde, 0xff, 0xff])
            .then_repeat(&[0xa1, b'k', 0x01], 0xffff)
            .then(&[0xc0]);
        assert_eq!(bytes.len(), 3 + 3 * 0xffff + 1);
        let expected = [
            vec![0xde, 0xff, 0xff],
            [0xa1, b'k', 0x01].repeat(0xffff),
            vec![0xc0],
        ]
        .concat();
        assert_eq!(written(&bytes), expected);
        assert_eq!(bytes.head(7), [0xde, 0xff, 0xff, 0xa1, b'k', 0x01, 0xa1]);
        assert_eq!(bytes.as_slice(), &expected[..]);
        assert_eq!(bytes.clone().into_vec(), expected);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn a_repeat_of_an_odd_unit_across_write_chunks_loses_nothing() {
        // 7 bytes do not divide the chunk: the last chunk is a part of one.
        let unit = [1, 2, 3, 4, 5, 6, 7];
        let times = WRITE_CHUNK / 7 * 3 + 5;
        let bytes = PayloadBytes::from(vec![9]).then_repeat(&unit, times);
        let out = written(&bytes);
        assert_eq!(out.len(), 1 + 7 * times);
        assert_eq!(out[1..], unit.repeat(times)[..]);
        assert!(PayloadBytes::repeat(&unit, 0).is_empty());
        assert_eq!(written(&PayloadBytes::repeat(&[], 5)), Vec::<u8>::new());
    }
}
