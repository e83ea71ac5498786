//! A bounds-checked read position over a byte slice. Never panics, never allocates.

/// The input ended: at least `needed` more bytes were required by the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Incomplete {
    /// Bytes missing for the read that failed.
    pub(crate) needed: usize,
}

/// A read position in a byte slice; every read checks the bounds and reports how many bytes
/// were missing.
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `input`.
    pub(crate) const fn new(input: &'a [u8]) -> Self {
        Cursor { input, pos: 0 }
    }

    /// A cursor at `pos` in `input` (at its end if `pos` is past it).
    pub(crate) fn at(input: &'a [u8], pos: usize) -> Self {
        Cursor {
            input,
            pos: pos.min(input.len()),
        }
    }

    /// Bytes consumed so far.
    pub(crate) const fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub(crate) const fn remaining(&self) -> usize {
        // pos never passes input.len(): every advance is by a slice that was taken.
        debug_assert!(
            self.pos <= self.input.len(),
            "cursor past the end of its input"
        );
        self.input.len().saturating_sub(self.pos)
    }

    /// The whole input.
    pub(crate) const fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The bytes consumed since position `start`.
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        self.input.get(start..self.pos).unwrap_or_default()
    }

    /// Takes the next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Incomplete> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        match rest.get(..n) {
            Some(bytes) => {
                self.pos = self.pos.saturating_add(n);
                Ok(bytes)
            }
            None => Err(Incomplete {
                needed: n.saturating_sub(rest.len()),
            }),
        }
    }

    /// Takes the next `N` bytes as an array.
    pub(crate) fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Incomplete> {
        let bytes = self.take(N)?;
        match <[u8; N]>::try_from(bytes) {
            Ok(array) => Ok(array),
            Err(_) => {
                crate::invariant::broken("take(N) returned other than N bytes");
                Err(Incomplete { needed: N })
            }
        }
    }

    /// The next byte, not taken.
    #[inline(always)]
    pub(crate) fn peek_u8(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// Takes one byte.
    pub(crate) fn take_u8(&mut self) -> Result<u8, Incomplete> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos = self.pos.saturating_add(1);
                Ok(b)
            }
            None => Err(Incomplete { needed: 1 }),
        }
    }
}
