//! The typed path's error: serde's messages placed where they were made, and [`DeError`],
//! the [`Error`] one pointer wide.

use crate::prelude::*;
use core::fmt::Display;

use serde::de::{self};

use crate::error::{Error, ErrorKind};

/// Where serde's own errors (made without a position) are placed until the deserializer
/// knows the position: replaced by the offset of the item being read.
pub(super) const UNPLACED: usize = usize::MAX;

impl de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(
            ErrorKind::Custom {
                message: msg.to_string(),
            },
            UNPLACED,
            0,
        )
    }
}

/// The error of [`Deserializer`](super::Deserializer), what a `Deserialize` implementation sees as `D::Error`:
/// an [`Error`] (kind, offset, depth) behind one pointer. [`from_slice`](super::from_slice) and the other entry
/// points hand back the `Error` itself.
///
/// Boxed because every serde call returns a `Result` of it: with the 48-byte `Error`, each
/// field's result came back through memory, and each level of a recursive type's decode held
/// one on the stack (`examples/typed_stack.rs` measures what a level costs).
/// An error is made once a decode; the box is its one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError(Box<Error>);

impl DeError {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: ErrorKind, offset: usize, depth: usize) -> Self {
        DeError(Box::new(Error::new(kind, offset, depth)))
    }

    /// What the type did wrong with the item at `offset` and `depth` (elements left unread,
    /// half an entry), said as serde's own messages are.
    #[cold]
    pub(super) fn about_item(message: String, offset: usize, depth: usize) -> Self {
        DeError::new(ErrorKind::Custom { message }, offset, depth)
    }

    /// The error.
    pub fn into_error(self) -> Error {
        *self.0
    }

    /// This error, placed at `offset` and `depth` if serde made it without a position.
    #[cold]
    #[inline(never)]
    pub(super) fn placed(mut self, offset: usize, depth: usize) -> Self {
        if self.0.offset() == UNPLACED {
            *self.0 = Error::new(self.0.kind().clone(), offset, depth);
        }
        self
    }
}

impl From<Error> for DeError {
    #[cold]
    #[inline(never)]
    fn from(error: Error) -> Self {
        DeError(Box::new(error))
    }
}

impl From<DeError> for Error {
    fn from(error: DeError) -> Self {
        error.into_error()
    }
}

impl core::ops::Deref for DeError {
    type Target = Error;

    fn deref(&self) -> &Error {
        &self.0
    }
}

impl Display for DeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        Display::fmt(&*self.0, f)
    }
}

impl core::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: Display>(msg: T) -> Self {
        DeError(Box::new(<Error as de::Error>::custom(msg)))
    }
}
