//! Strict mode's checks, made by the reader for every surface: each item in the one form
//! the encoder writes for it (its header byte for byte, a timestamp in its shortest form),
//! every map key a str, and no key twice in one map.
//!
//! Keys are compared by their bytes when their map ends: sorted (stable, so the earliest
//! repeat is found), never hashed, so no input can make the check slower than n log n. The
//! keys of the open maps, the open containers and a header-sized scratch buffer are this
//! mode's heap, charged to the budget before each growth.

use crate::prelude::*;
use core::mem::size_of;

use super::read::Sink;
use crate::error::{Error, ErrorKind};
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::token::{narrow, wide};
use crate::wire::header::{write_ext_header, Header};

/// An open container, as strict mode follows it.
struct Frame {
    is_map: bool,
    /// Items still to come (a map's keys and values one each).
    left: usize,
    /// Where this map's keys start in [`Strict::keys`].
    keys_from: usize,
}

/// A str key: its bytes and the offset of its item.
#[derive(Clone, Copy)]
struct Key<'a> {
    /// The first 7 bytes and the length (capped at 255), as one number: equal keys have equal
    /// prefixes, and most unequal short keys differ in it, so sorting rarely compares bytes.
    prefix: u64,
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Key<'a> {
    fn new(bytes: &'a [u8], offset: usize) -> Self {
        let mut head = [0u8; 8];
        for (to, from) in head.iter_mut().zip(bytes.iter().take(7)) {
            *to = *from;
        }
        if let Some(last) = head.last_mut() {
            *last = u8::try_from(bytes.len()).unwrap_or(u8::MAX);
        }
        Key {
            prefix: u64::from_be_bytes(head),
            bytes,
            offset,
        }
    }
}

/// What the item being read asks of [`Strict::settle`] once it has been read whole.
#[derive(Clone, Copy)]
enum Pending {
    /// A scalar, or an empty container: one item done.
    Item,
    /// A str key whose bytes start here (its item starting at `offset`).
    Key { body_from: usize, offset: usize },
    /// A container of this many items opened.
    Open { is_map: bool, items: usize },
}

pub(crate) struct Strict<'a> {
    scratch: Vec<u8>,
    frames: Vec<Frame>,
    keys: Vec<Key<'a>>,
    pending: Pending,
}

/// Room for the longest header: a marker and 8 bytes.
const LONGEST_HEADER: usize = 9;

/// Reserves room for `additional` more elements of `v` (to what is needed, or twice its
/// capacity), charging the growth to the sink first.
#[inline]
fn charged_reserve<'a, T>(
    v: &mut Vec<T>,
    additional: usize,
    sink: &mut impl Sink<'a>,
) -> Result<(), ErrorKind> {
    if v.capacity().saturating_sub(v.len()) >= additional {
        return Ok(());
    }
    let target = v
        .len()
        .saturating_add(additional)
        .max(v.capacity().saturating_mul(2));
    let extra = target.saturating_sub(v.len());
    let bytes = target
        .saturating_sub(v.capacity())
        .saturating_mul(size_of::<T>());
    sink.charge(bytes)?;
    v.try_reserve_exact(extra)
        .map_err(|_| ErrorKind::OutOfMemory { bytes })
}

impl<'a> Strict<'a> {
    pub(crate) fn new() -> Self {
        Strict {
            scratch: Vec::new(),
            frames: Vec::new(),
            keys: Vec::new(),
            pending: Pending::Item,
        }
    }

    /// True when the next item is a map key.
    #[inline]
    fn key_due(&self) -> bool {
        self.frames
            .last()
            .is_some_and(|f| f.is_map && f.left % 2 == 0)
    }

    /// Checks a header that was read from `bytes` (the item starts at `offset`): the form
    /// the encoder would write, and a str where a key is due.
    #[inline]
    pub(crate) fn header(
        &mut self,
        header: &Header,
        bytes: &[u8],
        offset: usize,
        sink: &mut impl Sink<'a>,
    ) -> Result<(), ErrorKind> {
        charged_reserve(&mut self.scratch, LONGEST_HEADER, sink)?;
        self.scratch.clear();
        header.write(&mut self.scratch);
        // The marker decides the rest: a header with the smallest form's marker holds the same
        // value in the same bytes. (Comparing the markers alone, not the whole headers, halved
        // strict mode's cost.)
        let marker = bytes.first().copied().unwrap_or_default();
        let smallest = self.scratch.first().copied().unwrap_or_default();
        if marker != smallest {
            return Err(ErrorKind::NonCanonical { marker, smallest });
        }
        let key_due = self.key_due();
        self.pending = match *header {
            Header::Str(_) if key_due => Pending::Key {
                body_from: offset.saturating_add(bytes.len()),
                offset,
            },
            _ if key_due => return Err(ErrorKind::NonStrKey),
            Header::Array(n) if n > 0 => Pending::Open {
                is_map: false,
                items: wide(n),
            },
            Header::Map(n) if n > 0 => Pending::Open {
                is_map: true,
                items: wide(n).saturating_mul(2),
            },
            _ => Pending::Item,
        };
        Ok(())
    }

    /// Checks that a valid timestamp, read from `item` (its header and payload), is in the
    /// shortest of its three forms.
    pub(crate) fn timestamp(&mut self, ts: Timestamp, item: &[u8]) -> Result<(), ErrorKind> {
        let (_, len) = ts.to_ext_payload();
        let found = item.first().copied().unwrap_or_default();
        // The header room was reserved (and charged) when the header was checked.
        self.scratch.clear();
        write_ext_header(TIMESTAMP_EXT_TYPE, narrow(len), &mut self.scratch);
        match self.scratch.first() {
            Some(&smallest) if smallest != found => Err(ErrorKind::NonCanonical {
                marker: found,
                smallest,
            }),
            _ => Ok(()),
        }
    }

    /// The item whose header [`header`](Self::header) checked was read whole, ending at
    /// `end` of `input`, at `depth` (the containers open around it): follows the nesting,
    /// and checks each map that ends for repeated keys.
    #[inline]
    pub(crate) fn settle(
        &mut self,
        input: &'a [u8],
        end: usize,
        depth: usize,
        sink: &mut impl Sink<'a>,
    ) -> Result<(), Error> {
        let at = |kind| Error::new(kind, end, depth);
        match self.pending {
            Pending::Open { is_map, items } => {
                charged_reserve(&mut self.frames, 1, sink).map_err(at)?;
                self.frames.push(Frame {
                    is_map,
                    left: items,
                    keys_from: self.keys.len(),
                });
                return Ok(());
            }
            Pending::Key { body_from, offset } => {
                charged_reserve(&mut self.keys, 1, sink).map_err(at)?;
                let bytes = input.get(body_from..end).unwrap_or_default();
                self.keys.push(Key::new(bytes, offset));
            }
            Pending::Item => {}
        }
        self.item_done()
    }

    /// One item done: counts it, closing every container it completes.
    #[inline]
    fn item_done(&mut self) -> Result<(), Error> {
        while let Some(frame) = self.frames.last_mut() {
            frame.left = frame.left.saturating_sub(1);
            if frame.left > 0 {
                return Ok(());
            }
            let keys_from = frame.keys_from;
            let is_map = frame.is_map;
            self.frames.pop();
            if is_map {
                // The map's keys sit at one more level than the map.
                let depth = self.frames.len().saturating_add(1);
                let keys = self.keys.get_mut(keys_from..).unwrap_or_default();
                if let Some((first, repeat)) = first_repeat(keys) {
                    return Err(Error::new(
                        ErrorKind::DuplicateKey {
                            first_offset: first,
                        },
                        repeat,
                        depth,
                    ));
                }
                self.keys.truncate(keys_from);
            }
        }
        Ok(())
    }
}

/// The earliest key (by offset) that repeats an earlier one: `(earlier, repeat)` offsets.
/// Sorts `keys`.
fn first_repeat(keys: &mut [Key<'_>]) -> Option<(usize, usize)> {
    // Equal keys in wire order, so each one's predecessor is an earlier copy. (Unstable
    // sorting allocates nothing; the offsets make the order total.)
    keys.sort_unstable_by(|a, b| {
        (a.prefix.cmp(&b.prefix))
            .then_with(|| a.bytes.cmp(b.bytes))
            .then(a.offset.cmp(&b.offset))
    });
    keys.windows(2)
        .filter_map(|pair| match pair {
            [a, b] if a.prefix == b.prefix && a.bytes == b.bytes => Some((a.offset, b.offset)),
            _ => None,
        })
        .min_by_key(|&(_, repeat)| repeat)
}
