//! The payloads of str and ext values, shaped so that [`Value`](crate::Value) stays 24 bytes.
//!
//! A str of at most [`Str::INLINE_CAPACITY`] bytes is held inside the value itself, so
//! decoding the short keys and words that make up most documents allocates nothing for them.
//! The inline length is an enum whose unused values are a niche: `Value` stores its own
//! variant there, and its other variants fit in the bytes before it. An ext keeps its type
//! byte in the same allocation as its data, because a separate `i8` beside a `Box<[u8]>` would
//! pad that variant to the full 24 bytes and leave no room for the niche.

use crate::prelude::*;
use core::borrow::Borrow;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

use crate::invariant;

/// UTF-8 text: up to [`Str::INLINE_CAPACITY`] bytes inline, longer text in one heap
/// allocation. Dereferences to `str`.
///
/// Comparing, ordering and encoding work on the bytes. Getting a `&str` out of inline text
/// re-checks it as UTF-8 (at most 23 bytes; about 15 ns for a short word in the benchmark),
/// because `forbid(unsafe_code)` leaves no way to vouch for bytes already checked; it cannot
/// fail. Prefer [`as_bytes`](Self::as_bytes) or `==` where that matters.
#[derive(Clone)]
pub struct Str(Repr);

#[derive(Clone)]
enum Repr {
    Inline(Inline),
    Heap(Box<str>),
}

/// Inline text. `repr(C)` keeps `len` last, where its niche leaves the first 16 bytes of a
/// `Value` free for the other variants.
#[derive(Clone, Copy)]
#[repr(C)]
struct Inline {
    bytes: [u8; Str::INLINE_CAPACITY],
    len: InlineLen,
}

/// A length from 0 to `INLINE_CAPACITY`; the other 232 byte values are the niche.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum InlineLen {
    L0,
    L1,
    L2,
    L3,
    L4,
    L5,
    L6,
    L7,
    L8,
    L9,
    L10,
    L11,
    L12,
    L13,
    L14,
    L15,
    L16,
    L17,
    L18,
    L19,
    L20,
    L21,
    L22,
    L23,
}

impl InlineLen {
    const ALL: [InlineLen; Str::INLINE_CAPACITY + 1] = {
        use InlineLen::*;
        [
            L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15, L16, L17, L18,
            L19, L20, L21, L22, L23,
        ]
    };

    fn new(len: usize) -> Option<InlineLen> {
        InlineLen::ALL.get(len).copied()
    }

    const fn get(self) -> usize {
        self as usize
    }
}

impl Inline {
    fn new(text: &[u8]) -> Option<Inline> {
        let len = InlineLen::new(text.len())?;
        let mut bytes = [0; Str::INLINE_CAPACITY];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Inline { bytes, len })
    }

    fn bytes(&self) -> &[u8] {
        let bytes = self.bytes.get(..self.len.get());
        invariant::expect_or(bytes, &[], "inline length above its capacity")
    }
}

impl Str {
    /// The longest text held without a heap allocation.
    pub const INLINE_CAPACITY: usize = 23;

    /// Text short enough to be held inline; `None` if it is longer than
    /// [`INLINE_CAPACITY`](Self::INLINE_CAPACITY).
    pub(crate) fn inline(text: &str) -> Option<Str> {
        Inline::new(text.as_bytes()).map(|i| Str(Repr::Inline(i)))
    }

    /// Makes this str `text`, in place.
    ///
    /// The decoder writes a default (inline, empty) str into a container's slot and then calls
    /// this on it, so the text is copied straight into its final place. Building the `Str`
    /// first and moving it in would reload bytes just stored one at a time, which the CPU
    /// cannot forward: that move cost more than the rest of decoding a short str.
    #[inline(always)]
    pub(crate) fn set_short(&mut self, text: ShortText<'_>) {
        if let Repr::Inline(inline) = &mut self.0 {
            if let Some(bytes) = inline.bytes.get_mut(..text.bytes.len()) {
                bytes.copy_from_slice(text.bytes);
                inline.len = text.len;
                return;
            }
        }
        self.replace_with_short(text);
    }

    /// [`set_short`](Self::set_short) for heap text (which the decoder never passes).
    #[cold]
    fn replace_with_short(&mut self, text: ShortText<'_>) {
        let mut bytes = [0; Str::INLINE_CAPACITY];
        match bytes.get_mut(..text.bytes.len()) {
            Some(prefix) => prefix.copy_from_slice(text.bytes),
            None => invariant::broken("ShortText longer than inline capacity"),
        }
        *self = Str(Repr::Inline(Inline {
            bytes,
            len: text.len,
        }));
    }

    pub(crate) fn heap(text: Box<str>) -> Str {
        Str(Repr::Heap(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Heap(s) => s,
            // Inline bytes were copied from a `str`, whole, or checked by `ShortText`.
            Repr::Inline(i) => invariant::expect_or(
                core::str::from_utf8(i.bytes()).ok(),
                "",
                "inline text that is not UTF-8",
            ),
        }
    }

    /// The UTF-8 bytes, without a check.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Heap(s) => s.as_bytes(),
            Repr::Inline(i) => i.bytes(),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Heap(s) => s.len(),
            Repr::Inline(i) => i.len.get(),
        }
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True if the text lives in its own heap allocation.
    pub fn is_heap(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }

    /// The text as a `String` (which allocates for inline text).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline(_) => String::from(self.as_str()),
        }
    }
}

/// Whether `bytes` are ASCII; up to 24 of them in at most three
/// overlapping word loads and no loop: `<[u8]>::is_ascii` goes byte by byte below a word,
/// and short strs (keys, most values) are most of what a document holds.
#[inline(always)]
fn is_ascii_short(bytes: &[u8]) -> bool {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let word = |at: usize| {
        bytes
            .get(at..at.saturating_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_ne_bytes)
    };
    let half = |at: usize| {
        bytes
            .get(at..at.saturating_add(4))
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map_or(0, u32::from_ne_bytes)
    };
    let byte = |at: usize| bytes.get(at).copied().unwrap_or(0);
    let len = bytes.len();
    match len {
        0 => true,
        // Byte 1 is the middle one of three, the last of two, and missing (0) for one.
        1..=3 => (byte(0) | byte(1) | byte(len.saturating_sub(1))) < 0x80,
        4..=7 => (half(0) | half(len.saturating_sub(4))) & 0x8080_8080 == 0,
        8..=16 => (word(0) | word(len.saturating_sub(8))) & HIGH_BITS == 0,
        17..=24 => (word(0) | word(8) | word(len.saturating_sub(8))) & HIGH_BITS == 0,
        _ => bytes.is_ascii(),
    }
}

/// Bytes known to be UTF-8 and short enough to be held inline.
#[derive(Clone, Copy)]
pub(crate) struct ShortText<'a> {
    bytes: &'a [u8],
    len: InlineLen,
}

impl<'a> ShortText<'a> {
    /// `bytes` if they fit inline and are UTF-8 (checked for ASCII first, which is cheaper
    /// than the general validator).
    #[inline(always)]
    pub(crate) fn new(bytes: &'a [u8]) -> Option<ShortText<'a>> {
        let len = InlineLen::new(bytes.len())?;
        (is_ascii_short(bytes) || core::str::from_utf8(bytes).is_ok())
            .then_some(ShortText { bytes, len })
    }

    /// The bytes, known to be UTF-8.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl Default for Str {
    fn default() -> Self {
        Str(Repr::Inline(Inline {
            bytes: [0; Str::INLINE_CAPACITY],
            len: InlineLen::L0,
        }))
    }
}

impl From<&str> for Str {
    fn from(text: &str) -> Self {
        Str::inline(text).unwrap_or_else(|| Str::heap(text.into()))
    }
}

impl From<String> for Str {
    fn from(text: String) -> Self {
        Str::inline(&text).unwrap_or_else(|| Str::heap(text.into_boxed_str()))
    }
}

impl From<Box<str>> for Str {
    fn from(text: Box<str>) -> Self {
        Str::inline(&text).unwrap_or_else(|| Str::heap(text))
    }
}

impl From<Str> for String {
    fn from(text: Str) -> Self {
        text.into_string()
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for Str {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    /// Byte order, which for UTF-8 is the order of `str`.
    fn cmp(&self, other: &Str) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for Str {
    /// Hashes as the `str` does, as `Borrow<str>` requires.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An extension value other than a timestamp: its type and data.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Ext {
    /// The type byte, then the data.
    type_and_data: Box<[u8]>,
}

impl Ext {
    /// An ext of type `ext_type` holding a copy of `data`.
    pub fn new(ext_type: i8, data: &[u8]) -> Ext {
        let mut type_and_data = Vec::with_capacity(data.len().saturating_add(1));
        type_and_data.push(ext_type.to_be_bytes()[0]);
        type_and_data.extend_from_slice(data);
        Ext::from_type_and_data(type_and_data.into_boxed_slice())
    }

    /// `type_and_data` must start with the type byte.
    pub(crate) fn from_type_and_data(type_and_data: Box<[u8]>) -> Ext {
        Ext { type_and_data }
    }

    /// The extension type.
    pub fn ext_type(&self) -> i8 {
        let first = self.type_and_data.first().copied();
        i8::from_be_bytes([invariant::expect_or(first, 0, "ext without its type byte")])
    }

    /// The data.
    pub fn data(&self) -> &[u8] {
        let data = self.type_and_data.get(1..);
        invariant::expect_or(data, &[], "ext without its type byte")
    }

    /// The type and a vector of the data.
    pub fn into_parts(self) -> (i8, Vec<u8>) {
        let ext_type = self.ext_type();
        let mut data = self.type_and_data.into_vec();
        if !data.is_empty() {
            data.remove(0);
        }
        (ext_type, data)
    }
}

impl fmt::Debug for Ext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ext({}, b\"{}\")",
            self.ext_type(),
            self.data().escape_ascii()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    #[test]
    fn the_word_ascii_check_agrees_with_the_byte_check_at_every_length_and_position() {
        for len in 0..=40 {
            let ascii = alloc::vec![b'a'; len];
            assert!(is_ascii_short(&ascii), "all ASCII, {len} bytes");
            for at in 0..len {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut bytes = ascii.clone();
                    bytes[at] = high;
                    assert!(!is_ascii_short(&bytes), "byte {at} of {len} is {high:#x}");
                }
            }
        }
    }

    #[test]
    fn the_word_ascii_check_sees_two_high_bytes_wherever_they_are() {
        // Two high bytes in the same lane of two words cancel if the words are combined
        // with `^` instead of `|`.
        for len in 2..=40 {
            for first in 0..len {
                for second in first + 1..len {
                    let mut bytes = alloc::vec![b'a'; len];
                    bytes[first] = 0x80;
                    bytes[second] = 0x80;
                    assert!(
                        !is_ascii_short(&bytes),
                        "bytes {first} and {second} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn str_reads_as_its_text_through_every_view() {
        use core::hash::BuildHasher;
        use std::collections::{hash_map::RandomState, HashSet};
        for text in ["", "é", "a heap string longer than 23 bytes"] {
            let s = Str::from(text);
            assert_eq!(s.is_empty(), text.is_empty());
            assert_eq!(&*s, text, "Deref");
            assert_eq!(AsRef::<str>::as_ref(&s), text);
            assert_eq!(AsRef::<[u8]>::as_ref(&s), text.as_bytes());
            assert_eq!(Borrow::<str>::borrow(&s), text);
            assert_eq!(String::from(s.clone()), text);
            assert_eq!(Str::from(Box::<str>::from(text)), s);
            assert_eq!(Str::from(String::from(text)), s);
            assert!(<Str as PartialEq<&str>>::eq(&s, &text));
            assert!(<Str as PartialEq<str>>::eq(&s, text));
            assert!(<&str as PartialEq<Str>>::eq(&text, &s));
            assert!(<str as PartialEq<Str>>::eq(text, &s));
            assert_eq!(format!("{s}"), text);
            assert_eq!(format!("{s:?}"), format!("{text:?}"));
            let state = RandomState::new();
            assert_eq!(
                state.hash_one(&s),
                state.hash_one(text),
                "hashes as its str"
            );
            let set: HashSet<Str> = HashSet::from([s.clone()]);
            assert!(set.contains(text), "found by its str (Borrow)");
        }
        let (a, b) = (Str::from("a"), Str::from("b"));
        assert!(a != b);
        assert!(!<Str as PartialEq<&str>>::eq(&a, &"b"));
        assert!(!<Str as PartialEq<str>>::eq(&a, "b"));
        assert!(!<&str as PartialEq<Str>>::eq(&"b", &a));
        assert!(!<str as PartialEq<Str>>::eq("b", &a));
        assert_eq!(a.partial_cmp(&b), Some(Ordering::Less));
        assert_eq!(b.cmp(&a), Ordering::Greater);
        assert_eq!(a.cmp(&Str::from("a")), Ordering::Equal);
        assert_eq!(
            Str::from("ab").cmp(&a),
            Ordering::Greater,
            "byte order, then length"
        );
    }

    #[test]
    fn short_text_is_inline_and_long_text_is_not() {
        let max = "x".repeat(Str::INLINE_CAPACITY);
        assert!(!Str::from(max.as_str()).is_heap());
        assert!(Str::from(format!("{max}x")).is_heap());
        assert!(!Str::from("").is_heap());
        assert!(!Str::from("é-ü").is_heap());
    }

    #[test]
    fn inline_and_heap_text_read_back_and_compare_by_content() {
        for text in [
            "",
            "a",
            "é-ü",
            "exactly twenty-three b!",
            "twenty-four bytes long!!",
        ] {
            let s = Str::from(text);
            assert_eq!(s.as_str(), text);
            assert_eq!(s.as_bytes(), text.as_bytes());
            assert_eq!(s.len(), text.len());
            assert_eq!(s, text);
            assert_eq!(
                s,
                Str::heap(text.into()),
                "inline and heap forms of {text:?}"
            );
            assert_eq!(s.clone().into_string(), text);
            assert_eq!(Value::from(text.to_owned()), Value::from(s));
        }
    }

    #[test]
    fn short_text_is_utf8_that_fits() {
        assert!(ShortText::new(b"exactly twenty-three b!").is_some());
        assert!(ShortText::new(b"twenty-four bytes long!!").is_none());
        assert!(ShortText::new(b"\xc3\xa9").is_some());
        assert!(ShortText::new(b"a\xff").is_none());
    }

    #[test]
    fn set_short_replaces_inline_and_heap_text() {
        for start in ["", "a heap string longer than 23 bytes"] {
            for text in ["", "a", "é-ü", "exactly twenty-three b!"] {
                let mut s = Str::from(start);
                s.set_short(ShortText::new(text.as_bytes()).unwrap());
                assert_eq!(s.as_str(), text);
                assert!(!s.is_heap());
            }
        }
    }

    #[test]
    fn str_is_24_bytes_and_leaves_a_niche() {
        let str_size = core::mem::size_of::<Str>();
        assert!(str_size <= 24, "{str_size} bytes");
        assert_eq!(
            core::mem::size_of::<Option<Str>>(),
            str_size,
            "no niche left"
        );
    }

    #[test]
    fn ext_keeps_type_and_data_apart() {
        let e = Ext::new(-128, b"ab");
        assert_eq!((e.ext_type(), e.data()), (-128, &b"ab"[..]));
        assert_eq!(Ext::new(5, b"").data(), b"");
        assert_eq!(Ext::new(7, b"xyz").into_parts(), (7, b"xyz".to_vec()));
        assert_eq!(format!("{:?}", Ext::new(5, b"\0")), "ext(5, b\"\\x00\")");
    }
}
