//! One hostile input, named for what it is and where it hits.

use std::fmt;

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
    pub bytes: Vec<u8>,
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
    pub fn new(id: impl Into<String>, what: impl Into<String>, bytes: Vec<u8>) -> Self {
        Payload {
            id: id.into(),
            what: what.into(),
            bytes,
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
        let shown = self.bytes.len().min(16);
        write!(
            f,
            "{} ({}, {} bytes: {:02x?}{})",
            self.id,
            self.what,
            self.bytes.len(),
            &self.bytes[..shown],
            if shown < self.bytes.len() { "..." } else { "" }
        )
    }
}
