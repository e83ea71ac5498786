//! A structure-aware mutator for the targets that read raw MessagePack: it parses the input's
//! payload with hardpack's own [`TokenReader`] (under no limits, so that it sees what the
//! targets' limits refuse), picks an item, and changes it the way attacks and bugs do:
//!
//! - a length field set to a boundary (0, 15/16, 31/32, 2^8, 2^16, 2^32−1, the default limits
//!   and one past them, the limit the input's own header chose and one past it, the bytes left
//!   and one past, its body's length ± 1), in any width;
//! - an integer or length written in a longer form than it needs (what strict mode refuses);
//! - a subtree duplicated in its array or map (the count raised to match), nested in a
//!   one-element array, replaced by its first child, or replaced by another subtree of the
//!   input;
//! - a map key replaced by a copy of another key of its map, or by that key with its last
//!   byte changed (keys sharing all but their end, where a repeat check that sorts on a
//!   prefix must still compare whole keys);
//! - a timestamp at the edges of its nanoseconds (999,999,999 and 1,000,000,000) in each form;
//! - a str byte made invalid UTF-8, a marker made the reserved 0xc1, the input cut inside an
//!   item.
//!
//! An input that does not parse to at least one item, and one mutation in three, goes to the
//! engine's own byte-level mutator. Every choice comes from `seed`, so a seed replays the same
//! mutation, as libFuzzer requires. `HARDPACK_MUTATOR=bytes` turns the structure off (every
//! mutation byte-level), to measure what it adds.

use hardpack::{decode::Token, decode::TokenReader, Limit, Limits};

/// An item of the payload: where it starts, where its header ends, where its whole value
/// ends (after every descendant), what it is, and the container it is in.
#[derive(Clone, Copy, Debug)]
struct Item<'a> {
    start: usize,
    header_end: usize,
    end: usize,
    token: Token<'a>,
    parent: Option<usize>,
}

/// The items of `payload`, in order, as far as it parses.
fn items(payload: &[u8]) -> Vec<Item<'_>> {
    // About one item every two bytes; each allocation is costly in an ASan build.
    let mut items: Vec<Item> = Vec::with_capacity(payload.len() / 2 + 1);
    // Each open container: its index and the children it still expects.
    let mut open: Vec<(usize, usize)> = Vec::with_capacity(16);
    let mut reader = TokenReader::new(payload, &Limits::unlimited());
    while let Some(Ok((start, token))) = reader.next() {
        let next_start = reader.position();
        let body = match token {
            Token::Str(s) => s.len(),
            Token::Bin(b) | Token::Ext(_, b) => b.len(),
            _ => 0,
        };
        let header_end = next_start.saturating_sub(body);
        let index = items.len();
        items.push(Item {
            start,
            header_end,
            end: next_start,
            token,
            parent: open.last().map(|&(p, _)| p),
        });
        let children = match token {
            Token::Array(n) => n as usize,
            Token::Map(n) => 2 * n as usize,
            _ => 0,
        };
        if children > 0 {
            open.push((index, children));
            continue;
        }
        // The item is complete, and with it every container it was the last child of.
        while let Some((container, left)) = open.last_mut() {
            *left -= 1;
            if *left > 0 {
                break;
            }
            items[*container].end = next_start;
            open.pop();
        }
    }
    // Containers cut short end where the parse stopped.
    let parsed = reader.position();
    for (container, _) in open {
        items[container].end = parsed;
    }
    items
}

/// A small deterministic generator (SplitMix64) seeded by libFuzzer's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }
}

/// A header of `kind` ("str", "bin", "ext", "array", "map") for a length of `len`, in the
/// width `width` picks (0 the smallest that fits, 1..=3 the 8-, 16- or 32-bit form, or the
/// first that fits above it), with `ext_type` for an ext.
fn length_header(kind: &str, len: u64, width: usize, ext_type: i8) -> Vec<u8> {
    let len32 = len.min(u64::from(u32::MAX)) as u32;
    let (fix_max, fix, forms): (u32, u8, [Option<u8>; 3]) = match kind {
        "str" => (31, 0xa0, [Some(0xd9), Some(0xda), Some(0xdb)]),
        "bin" => (0, 0, [Some(0xc4), Some(0xc5), Some(0xc6)]),
        "ext" => (0, 0, [Some(0xc7), Some(0xc8), Some(0xc9)]),
        "array" => (15, 0x90, [None, Some(0xdc), Some(0xdd)]),
        _ => (15, 0x80, [None, Some(0xde), Some(0xdf)]),
    };
    let mut out = Vec::new();
    let fits = |w: usize| match w {
        1 => len32 <= 0xff,
        2 => len32 <= 0xffff,
        _ => true,
    };
    if width == 0 && fix != 0 && len32 <= fix_max {
        out.push(fix | len32 as u8);
        return out;
    }
    let mut w = width.max(1);
    while w < 3 && (forms[w - 1].is_none() || !fits(w)) {
        w += 1;
    }
    out.push(forms[w - 1].unwrap_or(0xdb));
    match w {
        1 => out.push(len32 as u8),
        2 => out.extend((len32 as u16).to_be_bytes()),
        _ => out.extend(len32.to_be_bytes()),
    }
    if kind == "ext" {
        out.push(ext_type as u8);
    }
    out
}

/// Every form an integer can be written in (the smallest first), for a non-negative value
/// `u` and a signed value `i`.
fn int_forms(u: Option<u64>, i: Option<i64>) -> Vec<Vec<u8>> {
    let mut forms = Vec::new();
    if let Some(u) = u {
        if u <= 0x7f {
            forms.push(vec![u as u8]);
        }
        if u <= 0xff {
            forms.push(vec![0xcc, u as u8]);
        }
        if u <= 0xffff {
            forms.push([&[0xcd][..], &(u as u16).to_be_bytes()].concat());
        }
        if u <= 0xffff_ffff {
            forms.push([&[0xce][..], &(u as u32).to_be_bytes()].concat());
        }
        forms.push([&[0xcf][..], &u.to_be_bytes()].concat());
    }
    if let Some(i) = i {
        if (-32..0).contains(&i) {
            forms.push(vec![i as u8]);
        }
        if i8::try_from(i).is_ok() {
            forms.push(vec![0xd0, i as u8]);
        }
        if i16::try_from(i).is_ok() {
            forms.push([&[0xd1][..], &(i as i16).to_be_bytes()].concat());
        }
        if i32::try_from(i).is_ok() {
            forms.push([&[0xd2][..], &(i as i32).to_be_bytes()].concat());
        }
        forms.push([&[0xd3][..], &i.to_be_bytes()].concat());
    }
    forms
}

/// A timestamp (ext −1) with edge seconds and nanoseconds, in one of its three forms.
fn timestamp(rng: &mut Rng) -> Vec<u8> {
    let nanos: u32 = rng.pick(&[0, 1, 999_999_999, 1_000_000_000, (1 << 30) - 1, u32::MAX]);
    let secs: u64 = rng.pick(&[0, 1, u32::MAX as u64, 1 << 34, (1 << 34) - 1, u64::MAX]);
    match rng.below(3) {
        0 => [&[0xd6, 0xff][..], &(secs as u32).to_be_bytes()].concat(),
        1 => {
            let packed = (u64::from(nanos) << 34) | (secs & ((1 << 34) - 1));
            [&[0xd7, 0xff][..], &packed.to_be_bytes()].concat()
        }
        _ => [
            &[0xc7, 12, 0xff][..],
            &nanos.to_be_bytes(),
            &secs.to_be_bytes(),
        ]
        .concat(),
    }
}

/// Replaces `data[range]` with `with` in the first `size` bytes; the new size, or `None`
/// when it would not fit `max_size`.
fn splice(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    range: std::ops::Range<usize>,
    with: &[u8],
) -> Option<usize> {
    let new_size = size - range.len() + with.len();
    if new_size > max_size.min(data.len()) || range.end > size {
        return None;
    }
    data.copy_within(range.end..size, range.start + with.len());
    data[range.start..range.start + with.len()].copy_from_slice(with);
    Some(new_size)
}

/// One structural mutation of the payload at `payload_at`, or `None` when the one picked
/// does not apply (the caller falls back to byte-level mutation).
fn mutate_structure(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    payload_at: usize,
    rng: &mut Rng,
) -> Option<usize> {
    // The limits the target will decode under, for the targets whose input chooses them.
    let limits = (payload_at >= crate::targets::LIMITS_HEADER_LEN)
        .then(|| crate::targets::limits_from_input(data.get(..size).unwrap_or_default()).0);
    let payload = data.get(payload_at..size)?.to_vec();
    let items = items(&payload);
    if items.is_empty() {
        return None;
    }
    let at = rng.below(items.len());
    let item = items[at];
    let abs = |offset: usize| payload_at + offset;
    let header_range = abs(item.start)..abs(item.header_end);
    let mut replace_header =
        |header: &[u8]| splice(data, size, max_size, header_range.clone(), header);
    match rng.below(11) {
        // A length set to a boundary, in any width.
        0 | 1 => {
            let (kind, body, ext_type, limit) = match item.token {
                Token::Str(s) => ("str", s.len() as u64, 0, Limit::StrLen),
                Token::Bin(b) => ("bin", b.len() as u64, 0, Limit::BinLen),
                Token::Ext(t, b) => ("ext", b.len() as u64, t, Limit::ExtLen),
                Token::Array(n) => ("array", u64::from(n), 0, Limit::ArrayLen),
                Token::Map(n) => ("map", u64::from(n), 0, Limit::MapLen),
                _ => return None,
            };
            let left = (payload.len() - item.header_end) as u64;
            if let Some(limits) = limits.as_ref().filter(|_| rng.below(3) == 0) {
                // One past (or at) the limit this input's header chose; a str's, bin's or
                // ext's body resized to match when it is small, so the item is whole.
                let max = limits.get(limit) as u64;
                let len = max + rng.below(2) as u64;
                let mut bytes = length_header(kind, len, rng.below(4), ext_type);
                let mut replaced = abs(item.start)..abs(item.header_end);
                if matches!(kind, "str" | "bin" | "ext") && len <= 1024 {
                    bytes.extend(std::iter::repeat_n(b'a', len as usize));
                    replaced = abs(item.start)..abs(item.end);
                }
                return splice(data, size, max_size, replaced, &bytes);
            }
            let len = rng.pick(&[
                0,
                1,
                15,
                16,
                31,
                32,
                128,
                129,
                255,
                256,
                65_535,
                65_536,
                262_144,
                262_145,
                1_048_576,
                1_048_577,
                16 << 20,
                (16 << 20) + 1,
                u64::from(u32::MAX),
                left,
                left + 1,
                body.saturating_sub(1),
                body + 1,
            ]);
            let header = length_header(kind, len, rng.below(4), ext_type);
            replace_header(&header)
        }
        // An integer or a length in a longer form than it needs.
        2 => {
            let header = match item.token {
                Token::Integer(n) => {
                    let forms = int_forms(n.as_u64(), n.as_i64());
                    forms
                        .get(1 + rng.below(forms.len().saturating_sub(1)))?
                        .clone()
                }
                Token::Str(s) => length_header("str", s.len() as u64, 1 + rng.below(3), 0),
                Token::Array(n) => length_header("array", n.into(), 2 + rng.below(2), 0),
                Token::Map(n) => length_header("map", n.into(), 2 + rng.below(2), 0),
                _ => return None,
            };
            replace_header(&header)
        }
        // A subtree (an element, or a map's whole entry) duplicated, its container's count
        // raised by one.
        3 => {
            let parent = items[item.parent?];
            let (kind, count, step) = match parent.token {
                Token::Array(n) => ("array", u64::from(n), 1),
                Token::Map(n) => ("map", u64::from(n), 2),
                _ => return None,
            };
            // For a map, duplicate from the entry's key.
            let siblings: Vec<&Item> = items
                .iter()
                .filter(|i| i.parent == item.parent && i.start >= parent.header_end)
                .collect();
            let position = siblings.iter().position(|s| s.start == item.start)?;
            let first = siblings.get(position - position % step)?;
            let last = siblings.get(position - position % step + step - 1)?;
            let entry = payload.get(first.start..last.end)?.to_vec();
            let grown = splice(data, size, max_size, abs(last.end)..abs(last.end), &entry)?;
            let header = length_header(kind, count + 1, 0, 0);
            splice(
                data,
                grown,
                max_size,
                abs(parent.start)..abs(parent.header_end),
                &header,
            )
        }
        // Nested in a one-element array.
        4 => splice(
            data,
            size,
            max_size,
            abs(item.start)..abs(item.start),
            &[0x91],
        ),
        // A container replaced by its first child.
        5 => {
            let child = items.iter().find(|i| i.parent == Some(at))?;
            let bytes = payload.get(child.start..child.end)?.to_vec();
            splice(data, size, max_size, abs(item.start)..abs(item.end), &bytes)
        }
        // Replaced by another subtree of the input.
        6 => {
            let other = items[rng.below(items.len())];
            let bytes = payload.get(other.start..other.end)?.to_vec();
            splice(data, size, max_size, abs(item.start)..abs(item.end), &bytes)
        }
        // Replaced by a timestamp at the edges of its range.
        7 => {
            let ts = timestamp(rng);
            splice(data, size, max_size, abs(item.start)..abs(item.end), &ts)
        }
        // A str byte made invalid UTF-8, or a marker made the reserved one.
        8 => match item.token {
            Token::Str(s) if !s.is_empty() => {
                let byte = abs(item.header_end + rng.below(s.len()));
                data[byte] = rng.pick(&[0xff, 0xc0, 0x80, 0xed, 0xf8]);
                Some(size)
            }
            _ => {
                data[abs(item.start)] = 0xc1;
                Some(size)
            }
        },
        // A map key made a sibling key's copy, or that key with another last byte.
        9 => {
            let parent = items[item.parent?];
            if !matches!(parent.token, Token::Map(_)) {
                return None;
            }
            let siblings: Vec<&Item> = items
                .iter()
                .filter(|i| i.parent == item.parent && i.start >= parent.header_end)
                .collect();
            let keys: Vec<&&Item> = siblings.iter().step_by(2).collect();
            let key = keys
                .iter()
                .find(|k| k.start <= item.start && item.start < k.end)?;
            let other = keys[rng.below(keys.len())];
            let mut bytes = payload.get(other.start..other.end)?.to_vec();
            if rng.below(2) == 0 && bytes.len() > 1 {
                if let Some(last) = bytes.last_mut() {
                    // Another ASCII letter keeps a str valid UTF-8.
                    *last = b'a' + ((*last).wrapping_add(1 + rng.below(25) as u8) % 26);
                }
            }
            splice(data, size, max_size, abs(key.start)..abs(key.end), &bytes)
        }
        // Cut inside the item (or its body).
        _ => {
            let cut = item.start + 1 + rng.below(item.end - item.start);
            Some(abs(cut).min(size))
        }
    }
}

/// The mutator: one structural mutation of the payload at `payload_at` (0, or after a
/// target's limits header), or a byte-level one from `byte_level` (the engine's own).
pub fn mutate(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    payload_at: usize,
    byte_level: impl FnOnce(&mut [u8], usize, usize) -> usize,
) -> usize {
    let mut rng = Rng(u64::from(seed) ^ 0x6861_7264_7061_636b);
    let structure = std::env::var_os("HARDPACK_MUTATOR").is_none_or(|v| v != "bytes");
    if structure && rng.below(3) != 0 {
        match mutate_structure(data, size, max_size, payload_at, &mut rng) {
            Some(new_size) if new_size <= max_size => return new_size,
            _ => {}
        }
    }
    byte_level(data, size, max_size)
}

/// Where the MessagePack payload starts in a target's input: after the limits header for
/// the targets that read one (and the split byte of `stream_split`), `None` for the targets
/// whose input is not MessagePack (the structured ones).
pub fn payload_offset(target: &str) -> Option<usize> {
    match target {
        "roundtrip_structured" | "encode_deep" => None,
        "stream_split" => Some(crate::targets::LIMITS_HEADER_LEN + 1),
        "decode" | "differential_rmpv" | "serde_differential" => Some(0),
        _ => Some(crate::targets::LIMITS_HEADER_LEN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_know_where_each_value_ends() {
        // [1, {"a": [2]}, "xy"]
        let input = [0x93, 0x01, 0x81, 0xa1, b'a', 0x91, 0x02, 0xa2, b'x', b'y'];
        let spans: Vec<(usize, usize, usize)> = items(&input)
            .iter()
            .map(|i| (i.start, i.header_end, i.end))
            .collect();
        assert_eq!(
            spans,
            [
                (0, 1, 10),
                (1, 2, 2),
                (2, 3, 7),
                (3, 4, 5),
                (5, 6, 7),
                (6, 7, 7),
                (7, 8, 10)
            ]
        );
    }

    #[test]
    fn a_seed_replays_the_same_mutation_and_sizes_stay_within_max() {
        let input = [0x93, 0x01, 0x81, 0xa1, b'a', 0x91, 0x02, 0xa2, b'x', b'y'];
        let mut structural = 0;
        for seed in 0..2_000 {
            let run = || {
                let mut data = [0u8; 64];
                data[..input.len()].copy_from_slice(&input);
                let size = mutate(&mut data, input.len(), 64, seed, 0, |_, s, _| s);
                (data, size)
            };
            let (a, size) = run();
            assert_eq!((a, size), run(), "seed {seed}");
            assert!(size <= 64);
            if a[..size] != input[..] {
                structural += 1;
            }
        }
        // Two in three seeds try a structural mutation; most apply.
        assert!(
            structural > 1_000,
            "{structural} of 2,000 changed the input"
        );
    }

    #[test]
    fn every_seed_input_mutates_without_a_panic() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut mutated = 0;
        for target in ["decode", "decode_limits", "stream_split"] {
            let payload_at = payload_offset(target).unwrap();
            for entry in std::fs::read_dir(corpus.join(target)).unwrap() {
                let path = entry.unwrap().path();
                if !path.is_file() {
                    continue;
                }
                let input = std::fs::read(&path).unwrap();
                let max_size = input.len() * 2 + 16;
                for seed in 0..40 {
                    let mut data = vec![0u8; max_size];
                    data[..input.len()].copy_from_slice(&input);
                    let size = mutate(
                        &mut data,
                        input.len(),
                        max_size,
                        seed,
                        payload_at,
                        |_, s, _| s,
                    );
                    assert!(size <= max_size, "{}", path.display());
                    mutated += usize::from(data[..size] != input[..]);
                }
            }
        }
        assert!(mutated > 10_000, "{mutated}");
    }

    #[test]
    fn map_keys_become_copies_of_their_siblings() {
        // {"key.a": 1, "key.b": 2}: some seed makes the map repeat a key, and some makes a key
        // that shares all but its last byte with a sibling.
        let input = [
            0x82, 0xa5, b'k', b'e', b'y', b'.', b'a', 0x01, 0xa5, b'k', b'e', b'y', b'.', b'b',
            0x02,
        ];
        let (mut repeats, mut near) = (0, 0);
        for seed in 0..3_000 {
            let mut data = [0u8; 64];
            data[..input.len()].copy_from_slice(&input);
            let size = mutate(&mut data, input.len(), 64, seed, 0, |_, s, _| s);
            if size != input.len() || data[0] != 0x82 || data[7] != 0x01 || data[14] != 0x02 {
                continue;
            }
            let (first, second) = (&data[1..7], &data[8..14]);
            if first == second {
                repeats += 1;
            } else if first[..5] == second[..5] && first != &input[1..7] && first[5] != b'a' {
                near += 1;
            }
        }
        assert!(repeats > 10 && near > 5, "{repeats} repeats, {near} near");
    }

    #[test]
    fn lengths_take_every_width() {
        assert_eq!(length_header("str", 3, 0, 0), [0xa3]);
        assert_eq!(length_header("str", 3, 2, 0), [0xda, 0, 3]);
        assert_eq!(length_header("array", 3, 1, 0), [0xdc, 0, 3]);
        assert_eq!(length_header("bin", 70_000, 1, 0), [0xc6, 0, 1, 0x11, 0x70]);
        assert_eq!(length_header("ext", 1, 0, -1), [0xc7, 1, 0xff]);
        assert_eq!(int_forms(Some(5), Some(5)).len(), 9);
    }
}
