//! A bounds-checked read position over a byte slice. Never panics, never allocates.

/// The input ended: at least `needed` more bytes were required by the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Incomplete {
    /// Bytes missing for the read that failed.
    pub(crate) needed: usize,
}

/// A read position in a byte slice; every read checks the bounds and reports how many bytes
/// were missing.
///
/// Held as the input and the part of it not yet read (always a suffix of it): a read is one
/// comparison with what is left and no position arithmetic, which the compiler could not
/// prove free of overflow (every read would pay a saturating add).
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    input: &'a [u8],
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `input`.
    pub(crate) const fn new(input: &'a [u8]) -> Self {
        Cursor { input, rest: input }
    }

    /// A cursor at `pos` in `input` (at its end if `pos` is past it).
    pub(crate) fn at(input: &'a [u8], pos: usize) -> Self {
        Cursor {
            input,
            rest: input.get(pos..).unwrap_or_default(),
        }
    }

    /// Bytes consumed so far.
    #[inline(always)]
    pub(crate) const fn position(&self) -> usize {
        // rest is a suffix of input: every advance is by a slice that was taken.
        debug_assert!(
            self.rest.len() <= self.input.len(),
            "cursor past the end of its input"
        );
        self.input.len().saturating_sub(self.rest.len())
    }

    /// Bytes not yet consumed.
    #[inline(always)]
    pub(crate) const fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The bytes not yet consumed.
    #[inline(always)]
    #[cfg(feature = "derive")]
    pub(crate) const fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// The whole input.
    pub(crate) const fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The bytes consumed since position `start`.
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        self.input.get(start..self.position()).unwrap_or_default()
    }

    /// Takes the next `n` bytes.
    #[inline(always)]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Incomplete> {
        match self.rest.split_at_checked(n) {
            Some((bytes, rest)) => {
                self.rest = rest;
                Ok(bytes)
            }
            None => Err(Incomplete {
                needed: n.saturating_sub(self.rest.len()),
            }),
        }
    }

    /// Takes the next `N` bytes as an array.
    #[inline(always)]
    pub(crate) fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Incomplete> {
        match self.rest.split_first_chunk::<N>() {
            Some((bytes, rest)) => {
                self.rest = rest;
                Ok(*bytes)
            }
            None => Err(Incomplete {
                needed: N.saturating_sub(self.rest.len()),
            }),
        }
    }

    /// The next `N` bytes, not taken: `None` when fewer are left.
    #[inline(always)]
    pub(crate) fn window<const N: usize>(&self) -> Option<&'a [u8; N]> {
        self.rest.first_chunk::<N>()
    }

    /// The `N` bytes after the next one (after a marker), not taken: `None` when fewer are
    /// left.
    #[inline(always)]
    #[cfg(any(feature = "serde", test))]
    pub(crate) fn after_marker<const N: usize>(&self) -> Option<[u8; N]> {
        self.rest.get(1..)?.first_chunk::<N>().copied()
    }

    /// The `len` bytes `skip` bytes ahead, not taken: `None` when the input ends first.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn ahead(&self, skip: usize, len: usize) -> Option<&'a [u8]> {
        self.rest.get(skip..)?.get(..len)
    }

    /// The next byte, not taken.
    #[inline(always)]
    pub(crate) fn peek_u8(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// Takes one byte.
    #[inline(always)]
    pub(crate) fn take_u8(&mut self) -> Result<u8, Incomplete> {
        match self.rest.split_first() {
            Some((&b, rest)) => {
                self.rest = rest;
                Ok(b)
            }
            None => Err(Incomplete { needed: 1 }),
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn ahead_is_the_bytes_past_a_skip_or_none_when_the_input_ends_first() {
        let bytes = [1, 2, 3, 4, 5];
        let cur = Cursor::new(&bytes);
        for skip in 0..=bytes.len() + 1 {
            for len in 0..=bytes.len() + 1 {
                let expected = bytes.get(skip..).and_then(|rest| rest.get(..len));
                assert_eq!(cur.ahead(skip, len), expected, "skip {skip}, len {len}");
            }
        }
        assert_eq!(cur.position(), 0, "nothing taken");
    }
}
