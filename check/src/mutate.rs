//! Valid documents mutated place by place: for every node of a sample, the attacks that node
//! invites, written in its place so that the rest of the document stays valid (the way
//! libprotobuf-mutator mutates a message field by field). This needs nothing of the type or
//! the decoder: it is how the kit reaches a place no trace gets through, and what `hardpack
//! mutate` writes for a decoder in any language.
//!
//! ```
//! use hardpack_check::mutate::mutants;
//! use hardpack_check::sample::Sample;
//!
//! // {"len": 3, "body": "abc"}
//! let sample = Sample::parse(&[0x82, 0xa3, b'l', b'e', b'n', 0x03, 0xa4, b'b', b'o', b'd', b'y',
//!                              0xa3, b'a', b'b', b'c']).unwrap();
//! let all = mutants(&sample, 1_000_000);
//! let claim = all.iter().find(|m| m.place == ".len" && m.attack == "int-u32-max").unwrap();
//! assert_eq!(&claim.bytes[5..10], &[0xce, 0xff, 0xff, 0xff, 0xff]);
//! assert!(all.iter().any(|m| m.place == ".body" && m.attack == "str32-max"));
//! ```

use crate::msgpack::{array_header, integer_bytes, map_header, str_bytes};
use crate::payload::PayloadBytes;
use crate::sample::{Kind, Sample, Span};

/// The key an unknown map entry is given.
pub const UNKNOWN_KEY: &str = "hardpack-check-unknown";

/// The largest nesting a mutant writes, whatever the depth asked.
const MAX_NESTED_BYTES: usize = 16 << 20;

/// The largest element repeated to fill a 16-bit collection.
const MAX_REPEATED_ELEMENT: usize = 64;

/// One attack at one node of a sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    /// The node, as a path in the sample: `.user.name`, `.items[2]`, `.tags{key}`, `` for
    /// the root.
    pub place: String,
    /// The attack: `str32-max`, `int-u32-max`, `nested`, ...
    pub attack: String,
    /// What it does, for a person.
    pub what: String,
    /// The whole document with the attack in the node's place.
    pub bytes: PayloadBytes,
    /// Where the attack starts in `bytes`.
    pub offset: usize,
}

/// Every node's attacks, each written into the sample in that node's place; containers are
/// nested `depth` deep (no more than 16 MiB a mutant).
pub fn mutants(sample: &Sample, depth: usize) -> Vec<Mutant> {
    let (doc, spans) = sample.encode_with_spans();
    let mut out = Vec::new();
    for span in &spans {
        let Some(node) = sample.at(&span.path) else {
            continue;
        };
        let place = place_name(sample, &span.path);
        let node_bytes = &doc[span.start..span.end];
        for (attack, what, hostile) in attacks(node, node_bytes, sample, span, &spans, &doc, depth)
        {
            let bytes = PayloadBytes::from(&doc[..span.start])
                .then(hostile)
                .then(&doc[span.end..]);
            out.push(Mutant {
                place: place.clone(),
                attack,
                what,
                bytes,
                offset: span.start,
            });
        }
    }
    out
}

/// The document cut short: at every offset up to 512 bytes, and past that inside each node's
/// header.
pub fn cuts(sample: &Sample) -> Vec<(usize, Vec<u8>)> {
    let (doc, spans) = sample.encode_with_spans();
    let mut at: Vec<usize> = if doc.len() <= 512 {
        (0..doc.len()).collect()
    } else {
        spans
            .iter()
            .flat_map(|s| [s.start, s.start + 1])
            .filter(|n| *n < doc.len())
            .collect()
    };
    at.sort_unstable();
    at.dedup();
    at.into_iter().map(|n| (n, doc[..n].to_vec())).collect()
}

/// A node's path in words.
pub(crate) fn place_name(sample: &Sample, path: &[usize]) -> String {
    let mut out = String::new();
    let mut node = sample;
    for step in path {
        match node {
            Sample::Array(items) => {
                out.push_str(&format!("[{step}]"));
                match items.get(*step) {
                    Some(next) => node = next,
                    None => break,
                }
            }
            Sample::Map(entries) => {
                let Some((k, v)) = entries.get(step / 2) else {
                    break;
                };
                let key = match k {
                    Sample::Str(s)
                        if !s.is_empty()
                            && s.chars()
                                .all(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
                    {
                        format!(".{s}")
                    }
                    _ => format!("{{{}}}", step / 2),
                };
                out.push_str(&key);
                if step % 2 == 0 {
                    out.push_str("{key}");
                    node = k;
                } else {
                    node = v;
                }
            }
            _ => break,
        }
    }
    out
}

/// Header claims of one kind: (id, what, header bytes), every width at its largest.
pub(crate) type Claim = (&'static str, &'static str, &'static [u8]);

pub(crate) const ARRAY_CLAIMS: [Claim; 2] = [
    (
        "array16-max",
        "array 16 claiming 65535 elements",
        &[0xdc, 0xff, 0xff],
    ),
    (
        "array32-max",
        "array 32 claiming 4294967295 elements",
        &[0xdd, 0xff, 0xff, 0xff, 0xff],
    ),
];
pub(crate) const MAP_CLAIMS: [Claim; 2] = [
    (
        "map16-max",
        "map 16 claiming 65535 entries",
        &[0xde, 0xff, 0xff],
    ),
    (
        "map32-max",
        "map 32 claiming 4294967295 entries",
        &[0xdf, 0xff, 0xff, 0xff, 0xff],
    ),
];
pub(crate) const STR_CLAIMS: [Claim; 3] = [
    ("str8-max", "str 8 claiming 255 bytes", &[0xd9, 0xff]),
    (
        "str16-max",
        "str 16 claiming 65535 bytes",
        &[0xda, 0xff, 0xff],
    ),
    (
        "str32-max",
        "str 32 claiming 4294967295 bytes",
        &[0xdb, 0xff, 0xff, 0xff, 0xff],
    ),
];
pub(crate) const BIN_CLAIMS: [Claim; 3] = [
    ("bin8-max", "bin 8 claiming 255 bytes", &[0xc4, 0xff]),
    (
        "bin16-max",
        "bin 16 claiming 65535 bytes",
        &[0xc5, 0xff, 0xff],
    ),
    (
        "bin32-max",
        "bin 32 claiming 4294967295 bytes",
        &[0xc6, 0xff, 0xff, 0xff, 0xff],
    ),
];

pub(crate) const EXT_CLAIMS: [Claim; 2] = [
    ("ext8-max", "ext 8 claiming 255 bytes", &[0xc7, 0xff, 0x01]),
    (
        "ext32-max",
        "ext 32 claiming 4294967295 bytes",
        &[0xc9, 0xff, 0xff, 0xff, 0xff, 0x01],
    ),
];

pub(crate) fn claims(claims: &[Claim]) -> Vec<(String, String, Vec<u8>)> {
    claims
        .iter()
        .map(|(id, what, header)| (id.to_string(), format!("{what}, no body"), header.to_vec()))
        .collect()
}

type Attack = (String, String, PayloadBytes);

fn attack(id: &str, what: impl Into<String>, bytes: impl Into<PayloadBytes>) -> Attack {
    (id.to_string(), what.into(), bytes.into())
}

fn attacks(
    node: &Sample,
    node_bytes: &[u8],
    root: &Sample,
    span: &Span,
    spans: &[Span],
    doc: &[u8],
    depth: usize,
) -> Vec<Attack> {
    let mut out = Vec::new();
    let kind_claims: &[Claim] = match node {
        Sample::Array(_) => &ARRAY_CLAIMS,
        Sample::Map(_) => &MAP_CLAIMS,
        Sample::Str(_) => &STR_CLAIMS,
        Sample::Bin(_) => &BIN_CLAIMS,
        Sample::Ext(_) => &EXT_CLAIMS,
        _ => &[],
    };
    out.extend(
        claims(kind_claims)
            .into_iter()
            .map(|(id, what, header)| (id, what, header.into())),
    );
    match node {
        Sample::Array(items) => {
            let element = items.first().map_or(vec![0xc0], Sample::to_bytes);
            if element.len() <= MAX_REPEATED_ELEMENT {
                out.push(attack(
                    "array16-max-with-body",
                    "array 16 of 65535 copies of its first element, all there",
                    PayloadBytes::from(&[0xdc, 0xff, 0xff]).then_repeat(&element, 0xffff),
                ));
            }
        }
        Sample::Map(entries) => {
            let body = &node_bytes[map_header(entries.len()).len()..];
            if let Some((k, v)) = entries.first() {
                let entry = [k.to_bytes(), v.to_bytes()].concat();
                if entry.len() <= MAX_REPEATED_ELEMENT {
                    out.push(attack(
                        "map16-max-with-body",
                        "map 16 of 65535 copies of its first entry, all there",
                        PayloadBytes::from(&[0xde, 0xff, 0xff]).then_repeat(&entry, 0xffff),
                    ));
                }
                out.push(attack(
                    "duplicate-key",
                    "its first key twice",
                    [map_header(entries.len() + 1), body.to_vec(), entry].concat(),
                ));
            }
            let with_unknown =
                |value: PayloadBytes| map_with_one_more(entries.len(), body, UNKNOWN_KEY, value);
            let deep = depth.min(MAX_NESTED_BYTES);
            out.push(attack(
                "unknown-key-nested",
                format!("an unknown key holding {deep} nested arrays"),
                with_unknown(PayloadBytes::repeat(&[0x91], deep).then(&[0xc0])),
            ));
            out.push(attack(
                "unknown-key-claims",
                "an unknown key holding 200 nested array 32 headers each claiming 4294967295 \
                 elements",
                with_unknown([0xdd, 0xff, 0xff, 0xff, 0xff].repeat(200).into()),
            ));
        }
        Sample::Str(_) => {
            out.push(attack(
                "str16-max-with-body",
                "str 16 of 65535 bytes, all there",
                [&[0xda, 0xff, 0xff][..], &[b'a'; 0xffff]].concat(),
            ));
        }
        Sample::Bin(_) => {
            out.push(attack(
                "bin16-max-with-body",
                "bin 16 of 65535 bytes, all there",
                [&[0xc5, 0xff, 0xff][..], &[0u8; 0xffff]].concat(),
            ));
        }
        Sample::Int(n) => {
            // A count or a size the type may trust to size an allocation or a loop.
            let extremes: [(&str, &str, i128); 5] = [
                ("int-u16-max", "the largest u16, 65535", 0xffff),
                ("int-u32-max", "the largest u32, 4294967295", 0xffff_ffff),
                ("int-u64-max", "the largest u64", u64::MAX as i128),
                ("int-i64-min", "the smallest i64", i64::MIN as i128),
                ("int-minus-1", "-1", -1),
            ];
            // And the small values beside it: a branch a hand-written impl left
            // `unimplemented!` is often the next number.
            let mut near: Vec<i128> = (0..=7).collect();
            near.extend([n.saturating_sub(1), n.saturating_add(1)]);
            near.sort_unstable();
            near.dedup();
            for value in near.into_iter().filter(|v| v != n && *v >= -1) {
                out.push(attack(
                    &format!("int-{value}"),
                    format!("the integer {value}"),
                    integer_bytes(value),
                ));
            }
            for (id, what, value) in extremes {
                if value != *n {
                    out.push(attack(id, what, integer_bytes(value)));
                }
            }
        }
        Sample::F32(_) | Sample::F64(_) => {
            out.push(attack(
                "float-nan",
                "NaN",
                [&[0xcb][..], &f64::NAN.to_be_bytes()].concat(),
            ));
            out.push(attack(
                "float-infinity",
                "infinity",
                [&[0xcb][..], &f64::INFINITY.to_be_bytes()].concat(),
            ));
        }
        Sample::Ext(_) | Sample::Nil | Sample::Bool(_) => {}
    }
    if let Some(nested) = nested(node, root, span, spans, doc, depth) {
        out.push(nested);
    }
    out.push(match node.kind() {
        Kind::Nil => attack(
            "wrong-type",
            "a map where the sample has nil",
            vec![0x81, 0xc0, 0xc0],
        ),
        Kind::Int | Kind::Float => attack(
            "wrong-type",
            "a str where the sample has a number",
            str_bytes("1"),
        ),
        _ => attack("wrong-type", "nil where the sample has a value", vec![0xc0]),
    });
    out
}

/// A container nested `depth` containers deep at its place (counting every container the
/// path opens): through the path to a descendant of the same form (a recursive type's own
/// recursion), or else through its first child.
fn nested(
    node: &Sample,
    root: &Sample,
    span: &Span,
    spans: &[Span],
    doc: &[u8],
    depth: usize,
) -> Option<Attack> {
    if !matches!(node, Sample::Array(items) if !items.is_empty())
        && !matches!(node, Sample::Map(entries) if !entries.is_empty())
    {
        return None;
    }
    let form = signature(node);
    let inside = spans
        .iter()
        .filter(|s| s.path.len() > span.path.len() && s.path.starts_with(&span.path));
    let similar = inside
        .clone()
        .find(|s| root.at(&s.path).map(signature) == Some(form.clone()));
    let (inner, how) = match similar {
        Some(s) => (s, "through the path to a descendant of the same form"),
        None => (inside.clone().next()?, "through its first element"),
    };
    let prefix = doc.get(span.start..inner.start)?;
    let suffix = doc.get(inner.end..span.end)?;
    let middle = doc.get(inner.start..inner.end)?;
    let step = (prefix.len() + suffix.len()).max(1);
    // Each repetition opens a container at every step of the path, and a decoder that
    // recurses spends a frame on each: `depth` containers take this many repetitions.
    let containers = inner.path.len() - span.path.len();
    let n = depth
        .div_ceil(containers)
        .min(MAX_NESTED_BYTES / step)
        .max(1);
    let bytes = PayloadBytes::repeat(prefix, n)
        .then(middle)
        .then_repeat(suffix, n);
    Some(attack(
        "nested",
        format!("nested {} containers deep, {how}", n * containers),
        bytes,
    ))
}

/// A map of `entries` entries (`body`, their bytes) with one more after them, `key`: `value`.
pub(crate) fn map_with_one_more(
    entries: usize,
    body: &[u8],
    key: &str,
    value: PayloadBytes,
) -> PayloadBytes {
    PayloadBytes::from([map_header(entries + 1), body.to_vec(), str_bytes(key)].concat())
        .then(value)
}

/// What makes two containers the same form: their kind and length, an array's element
/// kinds, a map's keys.
fn signature(node: &Sample) -> Vec<u8> {
    match node {
        Sample::Array(items) => [
            array_header(items.len()),
            items.iter().map(|i| i.kind() as u8).collect(),
        ]
        .concat(),
        Sample::Map(entries) => [
            map_header(entries.len()),
            entries.iter().flat_map(|(k, _)| k.to_bytes()).collect(),
        ]
        .concat(),
        other => vec![other.kind() as u8],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested_mutant(document: &[u8], depth: usize) -> Mutant {
        let sample = Sample::parse(document).unwrap();
        mutants(&sample, depth)
            .into_iter()
            .find(|m| m.place.is_empty() && m.attack == "nested")
            .unwrap()
    }

    #[test]
    fn a_path_through_two_containers_is_repeated_half_as_often() {
        // {"c": [{"c": []}]}: the root map's descendant of the same form is two containers
        // in (the map, then the array), so 10 containers deep is the path 5 times.
        let document = [0x81, 0xa1, b'c', 0x91, 0x81, 0xa1, b'c', 0x90];
        let mutant = nested_mutant(&document, 10);
        let path = [0x81, 0xa1, b'c', 0x91];
        let innermost = [0x81, 0xa1, b'c', 0x90];
        assert_eq!(mutant.bytes, [&path.repeat(5)[..], &innermost].concat());
        assert_eq!(
            mutant.what,
            "nested 10 containers deep, through the path to a descendant of the same form"
        );
    }

    #[test]
    fn a_path_through_one_container_is_repeated_depth_times() {
        // [[[]]]: the root array's first element has its form, one container in.
        let mutant = nested_mutant(&[0x91, 0x91, 0x90], 7);
        assert_eq!(mutant.bytes, [&[0x91; 7][..], &[0x91, 0x90]].concat());
    }

    #[test]
    fn an_odd_depth_is_rounded_up_to_whole_repetitions() {
        let document = [0x81, 0xa1, b'c', 0x91, 0x81, 0xa1, b'c', 0x90];
        let mutant = nested_mutant(&document, 9);
        assert_eq!(mutant.bytes.len(), 4 * 5 + 4);
        assert!(
            mutant.what.starts_with("nested 10 containers deep"),
            "{}",
            mutant.what
        );
    }
}
