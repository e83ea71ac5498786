//! A MessagePack document as a tree the kit can edit: what a type accepted (found by the
//! tracer's search, or handed in by a user as a valid value or a captured message), and the
//! base of the attacks written place by place into it ([`crate::mutate`]).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Mutex;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::msgpack::{array_header, bin_bytes, integer_bytes, map_header, str_bytes};

/// One MessagePack value. Two samples are equal when they encode to the same bytes (a NaN
/// equals itself).
#[derive(Clone, Debug)]
pub enum Sample {
    /// nil
    Nil,
    /// true or false
    Bool(bool),
    /// An integer from `i64::MIN` to `u64::MAX`.
    Int(i128),
    /// float 32
    F32(f32),
    /// float 64
    F64(f64),
    /// A str.
    Str(String),
    /// A bin.
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Sample>),
    /// A map, its entries in order.
    Map(Vec<(Sample, Sample)>),
    /// An ext (or timestamp), kept as its encoded bytes.
    Ext(Vec<u8>),
}

impl PartialEq for Sample {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl Eq for Sample {}

/// How deep a sample may nest: a valid message a service sends is far shallower, and the
/// parser and the writers below recurse.
pub const MAX_SAMPLE_DEPTH: usize = 256;

/// Where one node of an encoded sample lies: its path from the root (child indexes: an
/// array's element, a map's key `2i` or value `2i + 1`), its byte range, and its first child's.
#[derive(Clone, Debug)]
pub(crate) struct Span {
    pub path: Vec<usize>,
    pub start: usize,
    pub end: usize,
}

impl Sample {
    /// The sample encoded in the smallest form of each header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out, &mut Vec::new(), &mut None);
        out
    }

    /// The sample encoded, and the span of every node, in document order.
    pub(crate) fn encode_with_spans(&self) -> (Vec<u8>, Vec<Span>) {
        let mut out = Vec::new();
        let mut spans = Some(Vec::new());
        self.write(&mut out, &mut Vec::new(), &mut spans);
        (out, spans.unwrap_or_default())
    }

    fn write(&self, out: &mut Vec<u8>, path: &mut Vec<usize>, spans: &mut Option<Vec<Span>>) {
        let start = out.len();
        let at = spans.as_mut().map(|s| {
            s.push(Span {
                path: path.clone(),
                start,
                end: start,
            });
            s.len() - 1
        });
        match self {
            Sample::Nil => out.push(0xc0),
            Sample::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
            Sample::Int(n) => out.extend(integer_bytes(*n)),
            Sample::F32(x) => out.extend([&[0xca][..], &x.to_be_bytes()].concat()),
            Sample::F64(x) => out.extend([&[0xcb][..], &x.to_be_bytes()].concat()),
            Sample::Str(s) => out.extend(str_bytes(s)),
            Sample::Bin(b) => out.extend(bin_bytes(b)),
            Sample::Ext(raw) => out.extend(raw),
            Sample::Array(items) => {
                out.extend(array_header(items.len()));
                for (i, item) in items.iter().enumerate() {
                    path.push(i);
                    item.write(out, path, spans);
                    path.pop();
                }
            }
            Sample::Map(entries) => {
                out.extend(map_header(entries.len()));
                for (i, (k, v)) in entries.iter().enumerate() {
                    path.push(2 * i);
                    k.write(out, path, spans);
                    path.pop();
                    path.push(2 * i + 1);
                    v.write(out, path, spans);
                    path.pop();
                }
            }
        }
        if let (Some(spans), Some(at)) = (spans.as_mut(), at) {
            if let Some(span) = spans.get_mut(at) {
                span.end = out.len();
            }
        }
    }

    /// Parses one MessagePack value that fills `bytes` exactly.
    pub fn parse(bytes: &[u8]) -> Result<Sample, String> {
        if bytes.is_empty() {
            return Err("it is empty".into());
        }
        let mut at = 0;
        let sample = parse_at(bytes, &mut at, 0)?;
        if at != bytes.len() {
            return Err(format!(
                "{} bytes after the value ending at byte {at}",
                bytes.len() - at
            ));
        }
        Ok(sample)
    }

    /// The node at `path`, if there is one.
    pub(crate) fn at(&self, path: &[usize]) -> Option<&Sample> {
        let Some((first, rest)) = path.split_first() else {
            return Some(self);
        };
        let child = match self {
            Sample::Array(items) => items.get(*first)?,
            Sample::Map(entries) => {
                let (k, v) = entries.get(first / 2)?;
                if first % 2 == 0 {
                    k
                } else {
                    v
                }
            }
            _ => return None,
        };
        child.at(rest)
    }

    /// The node at `path`, to change.
    pub(crate) fn at_mut(&mut self, path: &[usize]) -> Option<&mut Sample> {
        let Some((first, rest)) = path.split_first() else {
            return Some(self);
        };
        let child = match self {
            Sample::Array(items) => items.get_mut(*first)?,
            Sample::Map(entries) => {
                let (k, v) = entries.get_mut(first / 2)?;
                if first % 2 == 0 {
                    k
                } else {
                    v
                }
            }
            _ => return None,
        };
        child.at_mut(rest)
    }

    /// Every node's path, in document order.
    pub(crate) fn paths(&self) -> Vec<Vec<usize>> {
        self.encode_with_spans()
            .1
            .into_iter()
            .map(|s| s.path)
            .collect()
    }

    /// The words that could be a tagged enum's variant in this value: its map's str values
    /// (an internally or adjacently tagged enum's tag), or a sequence's first str (an
    /// adjacently tagged enum read as a sequence).
    /// Of a map, only the entries under a key a tag was found under (`tag_keys`), or under
    /// index 0, which serde's adjacently tagged enum reads as its tag.
    pub(crate) fn named_variants(
        &self,
        tag_keys: &std::collections::BTreeSet<String>,
    ) -> Vec<&str> {
        match self {
            Sample::Map(entries) => {
                let mut under_tag_keys = entries.iter().filter(|(k, _)| match k {
                    Sample::Str(k) => tag_keys.contains(k),
                    Sample::Int(0) => true,
                    _ => false,
                });
                // Two entries where serde reads one tag: which one it read is not known here
                // (an index key is a tag only to an adjacently tagged enum; a tag may be
                // written as a variant's index), so neither is said to be named.
                match (under_tag_keys.next(), under_tag_keys.next()) {
                    (Some((_, Sample::Str(word))), None) => vec![word.as_str()],
                    _ => Vec::new(),
                }
            }
            Sample::Array(items) => match items.first() {
                Some(Sample::Str(s)) => vec![s.as_str()],
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// What kind of value this is, in serde's words for an unexpected value.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Sample::Nil => Kind::Nil,
            Sample::Bool(_) => Kind::Bool,
            Sample::Int(_) => Kind::Int,
            Sample::F32(_) | Sample::F64(_) => Kind::Float,
            Sample::Str(_) => Kind::Str,
            Sample::Bin(_) => Kind::Bin,
            Sample::Array(_) => Kind::Array,
            Sample::Map(_) => Kind::Map,
            Sample::Ext(_) => Kind::Ext,
        }
    }
}

/// The kind of a [`Sample`] node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Nil,
    Bool,
    Int,
    Float,
    Str,
    Bin,
    Array,
    Map,
    Ext,
}

fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let end = at
        .checked_add(n)
        .filter(|end| *end <= bytes.len())
        .ok_or_else(|| format!("the document ends inside the value at byte {at}"))?;
    let out = &bytes[*at..end];
    *at = end;
    Ok(out)
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b))
}

fn parse_at(bytes: &[u8], at: &mut usize, depth: usize) -> Result<Sample, String> {
    if depth > MAX_SAMPLE_DEPTH {
        return Err(format!(
            "a sample nests deeper than {MAX_SAMPLE_DEPTH} at byte {at}"
        ));
    }
    let start = *at;
    let marker = take(bytes, at, 1)?[0];
    let length = |at: &mut usize, width: usize| -> Result<usize, String> {
        Ok(be(take(bytes, at, width)?) as usize)
    };
    Ok(match marker {
        0x00..=0x7f => Sample::Int(i128::from(marker)),
        0xe0..=0xff => Sample::Int(i128::from(marker as i8)),
        0xc0 => Sample::Nil,
        0xc2 => Sample::Bool(false),
        0xc3 => Sample::Bool(true),
        0xcc..=0xcf => {
            let width = 1 << (marker - 0xcc);
            Sample::Int(i128::from(be(take(bytes, at, width)?)))
        }
        0xd0..=0xd3 => {
            let width = 1 << (marker - 0xd0);
            let raw = be(take(bytes, at, width)?);
            let shift = 64 - 8 * width as u32;
            Sample::Int(i128::from(((raw << shift) as i64) >> shift))
        }
        0xca => Sample::F32(f32::from_bits(be(take(bytes, at, 4)?) as u32)),
        0xcb => Sample::F64(f64::from_bits(be(take(bytes, at, 8)?))),
        0xa0..=0xbf | 0xd9..=0xdb => {
            let len = match marker {
                0xd9 => length(at, 1)?,
                0xda => length(at, 2)?,
                0xdb => length(at, 4)?,
                _ => usize::from(marker & 0x1f),
            };
            let text = take(bytes, at, len)?;
            Sample::Str(
                std::str::from_utf8(text)
                    .map_err(|e| format!("a str that is not UTF-8 at byte {start}: {e}"))?
                    .to_string(),
            )
        }
        0xc4..=0xc6 => {
            let len = length(at, 1 << (marker - 0xc4))?;
            Sample::Bin(take(bytes, at, len)?.to_vec())
        }
        0x90..=0x9f | 0xdc | 0xdd => {
            let len = match marker {
                0xdc => length(at, 2)?,
                0xdd => length(at, 4)?,
                _ => usize::from(marker & 0x0f),
            };
            // Each element takes at least a byte: a claim is checked before it is believed.
            if len > bytes.len() - *at {
                return Err(format!("an array at byte {start} claims {len} elements"));
            }
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(parse_at(bytes, at, depth + 1)?);
            }
            Sample::Array(items)
        }
        0x80..=0x8f | 0xde | 0xdf => {
            let len = match marker {
                0xde => length(at, 2)?,
                0xdf => length(at, 4)?,
                _ => usize::from(marker & 0x0f),
            };
            if len > (bytes.len() - *at) / 2 {
                return Err(format!("a map at byte {start} claims {len} entries"));
            }
            let mut entries = Vec::with_capacity(len);
            for _ in 0..len {
                let k = parse_at(bytes, at, depth + 1)?;
                let v = parse_at(bytes, at, depth + 1)?;
                entries.push((k, v));
            }
            Sample::Map(entries)
        }
        0xd4..=0xd8 | 0xc7..=0xc9 => {
            let len = match marker {
                0xd4..=0xd8 => 1 << (marker - 0xd4),
                0xc7 => length(at, 1)?,
                0xc8 => length(at, 2)?,
                _ => length(at, 4)?,
            };
            take(bytes, at, len.saturating_add(1))?;
            Sample::Ext(bytes[start..*at].to_vec())
        }
        0xc1 => return Err(format!("the reserved marker 0xc1 at byte {start}")),
    })
}

/// A str or bytes made `'static` for a `Deserializer<'static>` (the tracer hands borrowed
/// values, so that `&'a str` and `&'a [u8]` fields can be traced). Each distinct value is
/// leaked once; the tracer makes few.
pub(crate) fn intern(text: &str) -> &'static str {
    static TEXTS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut texts = TEXTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = texts.get(text) {
        return known;
    }
    let leaked: &'static str = Box::leak(text.to_string().into_boxed_str());
    texts.insert(leaked);
    leaked
}

/// See [`intern`].
pub(crate) fn intern_bytes(data: &[u8]) -> &'static [u8] {
    static DATA: Mutex<BTreeSet<&'static [u8]>> = Mutex::new(BTreeSet::new());
    let mut all = DATA.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = all.get(data) {
        return known;
    }
    let leaked: &'static [u8] = Box::leak(data.to_vec().into_boxed_slice());
    all.insert(leaked);
    leaked
}

thread_local! {
    /// While a trace run logs them ([`log_enums`]): each enum a sample was read as, with its
    /// variants and the one the sample named.
    static ENUMS_READ: std::cell::RefCell<Option<Vec<EnumRead>>> =
        const { std::cell::RefCell::new(None) };
}

/// An enum a sample was read as: inside serde's buffering (an adjacently tagged variant's
/// content) the only sign that it was there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EnumRead {
    pub(crate) name: &'static str,
    pub(crate) variants: &'static [&'static str],
    pub(crate) chosen: String,
}

/// Runs `f`, returning what it returned and the enums samples were read as meanwhile.
pub(crate) fn log_enums<R>(f: impl FnOnce() -> R) -> (R, Vec<EnumRead>) {
    let before = ENUMS_READ.with(|log| log.replace(Some(Vec::new())));
    let result = f();
    let read = ENUMS_READ
        .with(|log| log.replace(before))
        .unwrap_or_default();
    (result, read)
}

/// A sample read as a self-describing format (as hardpack and rmp-serde read MessagePack):
/// what the tracer hands a place it searches a value for.
pub(crate) struct SampleDeserializer<'a, E> {
    sample: &'a Sample,
    error: std::marker::PhantomData<E>,
}

impl<'a, E> SampleDeserializer<'a, E> {
    pub(crate) fn new(sample: &'a Sample) -> Self {
        SampleDeserializer {
            sample,
            error: std::marker::PhantomData,
        }
    }
}

/// The refusal of a container a visitor left `left` of its `total` items (`what`) unread, as
/// a decoder of the bytes refuses it. Not in `deserialize_any`: that is compiled once for
/// each visitor.
fn unread<E: de::Error>(total: usize, left: usize, what: &str) -> E {
    E::invalid_length(total, &format!("{} {what}", total - left).as_str())
}

impl<E: de::Error> de::Deserializer<'static> for SampleDeserializer<'_, E> {
    type Error = E;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, E> {
        match self.sample {
            Sample::Nil => visitor.visit_unit(),
            Sample::Bool(b) => visitor.visit_bool(*b),
            Sample::Int(n) => match u64::try_from(*n) {
                Ok(n) => visitor.visit_u64(n),
                Err(_) => visitor.visit_i64(i64::try_from(*n).unwrap_or(i64::MIN)),
            },
            Sample::F32(x) => visitor.visit_f32(*x),
            Sample::F64(x) => visitor.visit_f64(*x),
            Sample::Str(s) => visitor.visit_borrowed_str(intern(s)),
            Sample::Bin(b) => visitor.visit_borrowed_bytes(intern_bytes(b)),
            Sample::Ext(raw) => visitor.visit_borrowed_bytes(intern_bytes(raw)),
            // What a visitor leaves unread is refused, as a decoder of the bytes refuses it.
            Sample::Array(items) => {
                let mut seq = Items::<E> {
                    items: items.iter(),
                    error: std::marker::PhantomData,
                };
                let value = visitor.visit_seq(&mut seq)?;
                match seq.items.len() {
                    0 => Ok(value),
                    left => Err(unread(items.len(), left, "elements")),
                }
            }
            Sample::Map(entries) => {
                let mut map = Entries::<E> {
                    entries: entries.iter(),
                    value: None,
                    error: std::marker::PhantomData,
                };
                let value = visitor.visit_map(&mut map)?;
                match map.entries.len() {
                    0 => Ok(value),
                    left => Err(unread(entries.len(), left, "entries")),
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, E> {
        match self.sample {
            Sample::Nil => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'static>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'static>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        let chosen = match self.sample {
            Sample::Str(s) => Some(s),
            Sample::Map(entries) if entries.len() == 1 => match &entries[0].0 {
                Sample::Str(s) => Some(s),
                _ => None,
            },
            _ => None,
        };
        if let Some(chosen) = chosen {
            ENUMS_READ.with(|log| {
                if let Some(log) = log.borrow_mut().as_mut() {
                    log.push(EnumRead {
                        name,
                        variants,
                        chosen: chosen.clone(),
                    });
                }
            });
        }
        // A unit variant by its name only: a variant's index as an integer is no enum to
        // hardpack, so a sample that used one would be refused before anything it holds.
        match self.sample {
            Sample::Str(_) => visitor.visit_enum(Tagged::<E> {
                tag: self.sample,
                content: None,
                error: std::marker::PhantomData,
            }),
            Sample::Map(entries) if entries.len() == 1 => visitor.visit_enum(Tagged::<E> {
                tag: &entries[0].0,
                content: Some(&entries[0].1),
                error: std::marker::PhantomData,
            }),
            _ => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'static>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

struct Items<'a, E> {
    items: std::slice::Iter<'a, Sample>,
    error: std::marker::PhantomData<E>,
}

impl<E: de::Error> SeqAccess<'static> for Items<'_, E> {
    type Error = E;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, E> {
        match self.items.next() {
            Some(item) => seed.deserialize(SampleDeserializer::new(item)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'a, E> {
    entries: std::slice::Iter<'a, (Sample, Sample)>,
    value: Option<&'a Sample>,
    error: std::marker::PhantomData<E>,
}

impl<E: de::Error> MapAccess<'static> for Entries<'_, E> {
    type Error = E;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, E> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(SampleDeserializer::new(k)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(&mut self, seed: V) -> Result<V::Value, E> {
        match self.value.take() {
            Some(v) => seed.deserialize(SampleDeserializer::new(v)),
            None => Err(E::custom("a map value asked before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum: its variant's name (or index), and its content.
struct Tagged<'a, E> {
    tag: &'a Sample,
    content: Option<&'a Sample>,
    error: std::marker::PhantomData<E>,
}

impl<E: de::Error> de::EnumAccess<'static> for Tagged<'_, E> {
    type Error = E;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'static>>(self, seed: S) -> Result<(S::Value, Self), E> {
        let variant = seed.deserialize(SampleDeserializer::new(self.tag))?;
        Ok((variant, self))
    }
}

impl<E: de::Error> de::VariantAccess<'static> for Tagged<'_, E> {
    type Error = E;

    fn unit_variant(self) -> Result<(), E> {
        match self.content {
            None | Some(Sample::Nil) => Ok(()),
            Some(_) => Err(E::invalid_type(de::Unexpected::Map, &"unit variant")),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'static>>(self, seed: S) -> Result<S::Value, E> {
        seed.deserialize(SampleDeserializer::new(
            self.content.unwrap_or(&Sample::Nil),
        ))
    }

    fn tuple_variant<V: Visitor<'static>>(self, _len: usize, visitor: V) -> Result<V::Value, E> {
        de::Deserializer::deserialize_any(
            SampleDeserializer::new(self.content.unwrap_or(&Sample::Nil)),
            visitor,
        )
    }

    fn struct_variant<V: Visitor<'static>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        de::Deserializer::deserialize_any(
            SampleDeserializer::new(self.content.unwrap_or(&Sample::Nil)),
            visitor,
        )
    }
}

impl fmt::Display for Sample {
    /// The sample in a JSON-like notation, for reports.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sample::Nil => f.write_str("nil"),
            Sample::Bool(b) => write!(f, "{b}"),
            Sample::Int(n) => write!(f, "{n}"),
            Sample::F32(x) => write!(f, "{x}"),
            Sample::F64(x) => write!(f, "{x}"),
            Sample::Str(s) => write!(f, "{s:?}"),
            Sample::Bin(b) => write!(f, "bin({} bytes)", b.len()),
            Sample::Ext(raw) => write!(f, "ext({} bytes)", raw.len()),
            Sample::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Sample::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_entry_under_a_tag_key_names_a_variant() {
        // A key the search added holds a variant's name; the tag under `t` holds another.
        let sample = Sample::Map(vec![
            (
                Sample::Str("hardpack-check-unknown".into()),
                Sample::Str("Data".into()),
            ),
            (Sample::Str("c".into()), Sample::Nil),
            (Sample::Str("t".into()), Sample::Str("Ping".into())),
        ]);
        let tags = std::collections::BTreeSet::from(["t".to_string()]);
        assert_eq!(sample.named_variants(&tags), ["Ping"]);
        // Index 0 is the tag of an adjacently tagged enum read as a map.
        let by_index = Sample::Map(vec![(Sample::Int(0), Sample::Str("Data".into()))]);
        assert_eq!(by_index.named_variants(&tags), ["Data"]);
    }

    #[test]
    fn a_map_with_two_words_where_serde_reads_one_tag_names_neither() {
        // An internally tagged enum reads `t` and takes index 0 as content; an adjacently
        // tagged one reads both as its tag and refuses the map. Which it is is not known.
        let sample = Sample::Map(vec![
            (Sample::Int(0), Sample::Str("Data".into())),
            (Sample::Str("t".into()), Sample::Str("Ping".into())),
        ]);
        let tags = std::collections::BTreeSet::from(["t".to_string()]);
        assert!(sample.named_variants(&tags).is_empty());
    }

    #[test]
    fn a_tag_written_as_a_variant_index_makes_a_word_beside_it_name_nothing() {
        // Serde reads a tag of `0` as the enum's first variant; the word "Data" under another
        // tag key is not what it read, and which variant index 0 is is not known here.
        let sample = Sample::Map(vec![
            (Sample::Str("kind".into()), Sample::Str("Data".into())),
            (Sample::Str("t".into()), Sample::Int(0)),
        ]);
        let tags = std::collections::BTreeSet::from(["t".to_string(), "kind".to_string()]);
        assert!(sample.named_variants(&tags).is_empty());
        // A tag as bytes or an index alone names no word either.
        let alone = Sample::Map(vec![(Sample::Str("t".into()), Sample::Int(2))]);
        assert!(alone.named_variants(&tags).is_empty());
    }
}
