//! The wire layer: a bounds-checked cursor over the input, and MessagePack headers (the
//! marker byte and its fixed-size fields), read and written. It knows nothing of values or
//! limits, and never allocates (writing appends to the caller's buffer).
//!
//! Private for now: the public low-level layer will be a token reader over it, with the
//! limits applied (one place for every check), not these raw headers.

pub(crate) mod cursor;
pub(crate) mod header;
