//! Hostile payloads shaped by a type: for every place of the type (a field, an element, a map
//! value, an enum variant's content), the attacks that place invites, inside an otherwise
//! valid document in rmp-serde's format (structs as arrays, enums as their name or a one-entry
//! map). Encoded by hand from the traced [`shape`](crate::shape), never by a serializer.

use std::collections::BTreeMap;

use serde::de::Deserialize;

use crate::generic::generic;
use crate::msgpack::{array_header, int_bytes, map_header, str_bytes, uint_bytes};
use crate::mutate::{
    claims, map_with_one_more, mutants, ARRAY_CLAIMS, BIN_CLAIMS, EXT_CLAIMS, MAP_CLAIMS,
    STR_CLAIMS,
};
use crate::payload::{Payload, PayloadBytes};
use crate::sample::Sample;
use crate::shape::{trace, trace_with, Container, Shape, TraceError, Traced, Unseen, Variant};

/// How deep the recursion payloads nest each recursive path.
pub const RECURSION_DEPTH: usize = 1_000_000;

/// The key an unknown struct field or enum variant is given.
const UNKNOWN: &str = "hardpack-check-unknown";

/// The name of the newtype struct rmp-serde and hardpack read and write as an ext.
const EXT_STRUCT_NAME: &str = hardpack::ser::EXT_STRUCT_NAME;

/// The smallest ext: fixext 1, type 1, one zero byte.
const SMALLEST_EXT: [u8; 3] = [0xd4, 0x01, 0x00];

/// The longest valid sample cut at every offset (a cut of each byte of a bigger one says
/// nothing more).
const MAX_CUT_SAMPLE: usize = 4096;

/// The hostile payloads shaped by `T`, traced from its `Deserialize`, in a fixed order: for
/// each place of the type, each collection (sequence, map, str, bytes) with a header claiming
/// the largest length of each width (and, for the 8- and 16-bit widths, with the body too);
/// each recursive path nested [`RECURSION_DEPTH`] deep; in each struct read as a map, an
/// unknown field holding a deep nesting and a chain of maximal claims; each enum with an
/// unknown variant index and name; a wrong type at each place; duplicate keys in each map;
/// the generic bombs and claims at each place the tracer cannot see into (a
/// `deserialize_any` place); and valid samples, one of them cut at every offset.
///
/// An error names the type when its shape cannot be traced; [`payloads_for`] then falls
/// back to the generic payloads.
pub fn for_type<T: Deserialize<'static>>() -> Result<Vec<Payload>, TraceError> {
    Ok(from_shape(&trace::<T>()?))
}

/// What a check runs against `T`: the generic payloads, then those shaped by `T`; when `T`
/// cannot be traced, the generic payloads alone and the reason.
pub fn payloads_for<T: Deserialize<'static>>() -> (Vec<Payload>, Option<TraceError>) {
    let generated = generate::<T>(&[], RECURSION_DEPTH);
    (generated.payloads, generated.error)
}

/// What a check generates for `T`: the payloads, and what the trace saw and did not.
pub(crate) struct Generated {
    pub(crate) payloads: Vec<Payload>,
    pub(crate) error: Option<TraceError>,
    /// Why the payload files could not be read, for a check of files.
    pub(crate) file_error: Option<String>,
    /// The places the trace saw only in part ([`Traced::gaps`]).
    pub(crate) gaps: Vec<String>,
    /// What it did not see ([`Traced::unseen`]).
    pub(crate) unseen: Vec<Unseen>,
    /// Every place of the type, as payload ids name them, each variant of each enum
    /// included (those the trace could not build too).
    pub(crate) places: Vec<String>,
    /// The ledger's keys of each place (a place of a searched sample also names the
    /// variants its tag names).
    pub(crate) place_keys: BTreeMap<String, Vec<String>>,
    /// Every request the type's `Deserialize` made during the trace.
    pub(crate) nodes: Vec<crate::shape::Node>,
    /// The trace's key of each type, by serde name and visitor type.
    pub(crate) names: crate::shape::Names,
}

impl Generated {
    /// Payloads with nothing traced: why the type was not traced (`error`), or why the
    /// payload files could not be read (`file_error`); `nodes` and `names` are what a trace
    /// that gave up had met.
    pub(crate) fn untraced(
        payloads: Vec<Payload>,
        error: Option<TraceError>,
        file_error: Option<String>,
    ) -> Generated {
        let (nodes, names) = error
            .as_ref()
            .map_or_else(Default::default, |e| (e.nodes.clone(), (*e.names).clone()));
        Generated {
            payloads,
            error,
            file_error,
            gaps: Vec::new(),
            unseen: Vec::new(),
            places: Vec::new(),
            place_keys: BTreeMap::new(),
            nodes,
            names,
        }
    }
}

/// [`payloads_for`], tracing with the values of `samples` ([`crate::shape::trace_with`]),
/// each recursive path nested `depth` deep.
pub(crate) fn generate<T: Deserialize<'static>>(samples: &[Sample], depth: usize) -> Generated {
    let mut payloads = generic();
    match trace_with::<T>(samples) {
        Ok(traced) => {
            let (shaped, places, place_keys) = shaped_with_places(&traced, depth);
            payloads.extend(shaped);
            Generated {
                payloads,
                error: None,
                file_error: None,
                gaps: traced.gaps,
                unseen: traced.unseen,
                places,
                place_keys,
                nodes: traced.nodes,
                names: traced.names,
            }
        }
        Err(e) => Generated::untraced(payloads, Some(e), None),
    }
}

/// The payloads of a traced shape.
pub fn from_shape(traced: &Traced) -> Vec<Payload> {
    shaped(traced, RECURSION_DEPTH)
}

/// Seeds for a fuzz target on `T`: the payloads of [`for_type`] with each nesting just past
/// hardpack's default `max_depth` instead of a million deep, none over [`MAX_SEED_BYTES`]
/// (the fuzzer's time goes to mutating, not to re-reading big inputs). Falls back to the
/// generic payloads of that size when `T` cannot be traced.
pub fn seeds_for<T: Deserialize<'static>>() -> Vec<Payload> {
    let depth = hardpack::Limits::default().max_depth + 2;
    let mut seeds = match trace::<T>() {
        Ok(traced) => shaped(&traced, depth),
        Err(_) => generic(),
    };
    seeds.retain(|p| p.bytes.len() <= MAX_SEED_BYTES);
    seeds
}

/// The largest seed [`seeds_for`] writes.
pub const MAX_SEED_BYTES: usize = 4096;

/// Writes [`seeds_for`]`::<T>()` into `dir` (created if missing), a file per seed named by its
/// id; returns how many.
pub fn write_seeds<T: Deserialize<'static>>(
    dir: impl AsRef<std::path::Path>,
) -> std::io::Result<usize> {
    let dir = dir.as_ref();
    std::fs::create_dir_all(dir)?;
    let seeds = seeds_for::<T>();
    for seed in &seeds {
        seed.bytes.write_file(dir.join(seed.file_name()))?;
    }
    Ok(seeds.len())
}

/// Writes the seeds of one valid document (a sample, named `name`) into `dir` (created if
/// missing): [`for_sample`] with each nesting just past hardpack's default `max_depth`, none
/// over [`MAX_SEED_BYTES`]; returns how many. Seeds the fuzz template where the tracer cannot
/// see the type, or with the messages a service really gets.
pub fn write_sample_seeds(
    dir: impl AsRef<std::path::Path>,
    name: &str,
    bytes: &[u8],
) -> std::io::Result<usize> {
    let dir = dir.as_ref();
    let depth = hardpack::Limits::default().max_depth + 2;
    let seeds = for_sample(name, bytes, depth)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    std::fs::create_dir_all(dir)?;
    let mut written = 0;
    for seed in seeds.iter().filter(|s| s.bytes.len() <= MAX_SEED_BYTES) {
        seed.bytes.write_file(dir.join(seed.file_name()))?;
        written += 1;
    }
    Ok(written)
}

/// The payloads of one valid document (a sample, named `name`): the document itself, each of
/// its nodes attacked in its place ([`crate::mutate::mutants`], containers nested `depth`
/// deep), and the document cut short. Works for any type and any decoder: it needs nothing
/// but the document. An error says why `bytes` is not one MessagePack value.
pub fn for_sample(name: &str, bytes: &[u8], depth: usize) -> Result<Vec<Payload>, String> {
    let sample = crate::sample::Sample::parse(bytes)?;
    let mut valid = Payload::new(
        format!("{name}.valid"),
        format!("{name}: the sample as given"),
        sample.to_bytes(),
    );
    valid.reaches = sample
        .paths()
        .iter()
        .map(|path| format!("{name}{}", crate::mutate::place_name(&sample, path)))
        .collect();
    let mut out = vec![valid];
    for m in mutants(&sample, depth) {
        out.push(
            Payload::new(
                format!("{name}{}.{}", m.place, m.attack),
                format!("{name}{}: {}", m.place, m.what),
                m.bytes,
            )
            .at_place(format!("{name}{}", m.place), m.offset),
        );
    }
    for (at, cut) in crate::mutate::cuts(&sample) {
        out.push(Payload::new(
            format!("{name}.cut-{at}"),
            format!("{name}: cut after {at} bytes"),
            cut,
        ));
    }
    Ok(out)
}

pub(crate) use for_sample as sample_payloads;

/// The payloads of a traced shape, each nesting `depth` deep.
fn shaped(traced: &Traced, depth: usize) -> Vec<Payload> {
    shaped_with_places(traced, depth).0
}

/// The ledger's keys of each place of the type, by its name.
type PlaceKeys = BTreeMap<String, Vec<String>>;

/// [`shaped`], the name of every place of the type, and the ledger's keys of each.
fn shaped_with_places(traced: &Traced, depth: usize) -> (Vec<Payload>, Vec<String>, PlaceKeys) {
    let root_name = short_name(traced.type_name);
    let writer = Writer {
        root: &traced.root,
        containers: &traced.containers,
        ends: ends(&traced.containers),
    };
    let mut places = Vec::new();
    writer.places(&traced.root, &mut Vec::new(), &mut Vec::new(), &mut places);
    let mut out = Vec::new();
    let mut controls: Vec<Payload> = Vec::new();
    let name = |place: &Place| format!("{root_name}{}", place.path);
    let mut names: Vec<String> = Vec::new();
    let mut keys: PlaceKeys = BTreeMap::new();
    // A valid document reaching a place: decoded, it shows the decoder gets there. Places
    // that share one share its payload.
    let add_control =
        |controls: &mut Vec<Payload>, place: String, bytes: PayloadBytes| match controls
            .iter()
            .position(|c: &Payload| c.bytes == bytes)
        {
            Some(known) => controls[known].reaches.push(place),
            None => {
                let mut valid = Payload::new(
                    format!("{place}.valid"),
                    format!("{place}: a valid document reaching it"),
                    bytes,
                );
                valid.reaches.push(place);
                controls.push(valid);
            }
        };
    for place in &places {
        if !names.contains(&name(place)) {
            names.push(name(place));
        }
        keys.entry(name(place)).or_default().push(place.key.clone());
        if let Some(v) = place.variant {
            // The enum at this place written as its variant `v`. A variant the trace could
            // not build has no valid document.
            if let Resolved::Container(enum_name, Container::Enum(variants)) =
                writer.resolve(&place.shape)
            {
                if let Some((variant, Some(content))) = variants.get(v) {
                    let written = writer.variant(variants, v, None, &mut Vec::new());
                    let (control, _) = writer.with_hole(&traced.root, &place.steps, written);
                    add_control(&mut controls, name(place), control);
                    // A struct variant gets a struct's attacks, written as the variant.
                    if let Variant::Struct(fields) = content {
                        for (id, what, bytes) in writer.struct_attacks(enum_name, fields, depth) {
                            let as_variant =
                                PayloadBytes::from([&[0x81][..], &str_bytes(variant)].concat())
                                    .then(bytes);
                            let (bytes, offset) =
                                writer.with_hole(&traced.root, &place.steps, as_variant);
                            out.push(
                                Payload::new(
                                    format!("{}.{id}", name(place)),
                                    format!("{}: {what}", name(place)),
                                    bytes,
                                )
                                .at_place(name(place), offset),
                            );
                        }
                    }
                }
            }
            continue;
        }
        let at = |id: &str, what: String, hostile: PayloadBytes| {
            let (bytes, offset) = writer.with_hole(&traced.root, &place.steps, hostile);
            Payload::new(
                format!("{}.{id}", name(place)),
                format!("{}: {what}", name(place)),
                bytes,
            )
            .at_place(name(place), offset)
        };
        let (control, _) = writer.with_hole(
            &traced.root,
            &place.steps,
            writer.minimal(&place.shape, &mut Vec::new()),
        );
        add_control(&mut controls, name(place), control);
        match writer.resolve(&place.shape) {
            Resolved::Shape(Shape::Seq(element)) => {
                for (id, what, header) in claims(&ARRAY_CLAIMS) {
                    out.push(at(&id, what, header.into()));
                }
                let element = writer.minimal(element, &mut Vec::new());
                out.push(at(
                    "array16-max-with-body",
                    "array 16 of 65535 elements, all there".into(),
                    PayloadBytes::from(&[0xdc, 0xff, 0xff]).then_repeat(&element, 0xffff),
                ));
            }
            Resolved::Shape(Shape::Map { key, value }) => {
                for (id, what, header) in claims(&MAP_CLAIMS) {
                    out.push(at(&id, what, header.into()));
                }
                let key = writer.minimal(key, &mut Vec::new());
                let value = writer.minimal(value, &mut Vec::new());
                let entry = [key.clone(), value.clone()].concat();
                out.push(at(
                    "map16-max-with-body",
                    "map 16 of 65535 entries, all there (every key the same)".into(),
                    PayloadBytes::from(&[0xde, 0xff, 0xff]).then_repeat(&entry, 0xffff),
                ));
                out.push(at(
                    "duplicate-key",
                    "a map holding the same key twice".into(),
                    [&[0x82][..], &entry, &entry].concat().into(),
                ));
            }
            Resolved::Shape(Shape::Str) | Resolved::Shape(Shape::Char) => {
                for (id, what, header) in claims(&STR_CLAIMS) {
                    out.push(at(&id, what, header.into()));
                }
                out.push(at(
                    "str16-max-with-body",
                    "str 16 of 65535 bytes, all there".into(),
                    PayloadBytes::from(&[0xda, 0xff, 0xff]).then_repeat(b"a", 0xffff),
                ));
            }
            Resolved::Shape(Shape::Bytes) => {
                for (id, what, header) in claims(&BIN_CLAIMS) {
                    out.push(at(&id, what, header.into()));
                }
                out.push(at(
                    "bin16-max-with-body",
                    "bin 16 of 65535 bytes, all there".into(),
                    PayloadBytes::from(&[0xc5, 0xff, 0xff]).then_repeat(&[0], 0xffff),
                ));
            }
            Resolved::Shape(Shape::Opaque) => {
                for p in generic_bombs() {
                    out.push(at(&p.id, p.what, p.bytes));
                }
            }
            Resolved::Shape(Shape::Sampled(samples)) => {
                // What the place was found to accept, each mutated node by node, and the
                // generic bombs in its place.
                for (k, sample) in samples.iter().enumerate() {
                    let (with_sample, offset) =
                        writer.with_hole(&traced.root, &place.steps, sample.to_bytes());
                    let sample_name = format!("{}@{k}", name(place));
                    // Each node of the sample is a place of its own; the valid document
                    // holding the sample reaches them all.
                    let nodes: Vec<String> = sample
                        .paths()
                        .iter()
                        .map(|path| {
                            format!("{sample_name}{}", crate::mutate::place_name(sample, path))
                        })
                        .collect();
                    // The sample stands for its place, and for the variants its tag names.
                    let mut sample_keys = vec![place.key.clone()];
                    sample_keys.extend(
                        sample
                            .named_variants(&traced.names.tag_keys)
                            .into_iter()
                            .map(|v| format!("{}::{v}", place.key)),
                    );
                    for node in nodes.iter().chain([&sample_name]) {
                        if !names.contains(node) {
                            names.push(node.clone());
                        }
                        keys.insert(node.clone(), sample_keys.clone());
                    }
                    match controls.iter_mut().find(|c| c.bytes == with_sample) {
                        Some(known) => known.reaches.extend(nodes),
                        None => {
                            let mut valid = Payload::new(
                                format!("{sample_name}.valid"),
                                format!(
                                    "{}: a valid document holding its sample {k}, {sample}",
                                    name(place)
                                ),
                                with_sample,
                            );
                            valid.reaches = nodes;
                            controls.push(valid);
                        }
                    }
                    for m in mutants(sample, depth) {
                        let (bytes, hole) = writer.with_hole(&traced.root, &place.steps, m.bytes);
                        debug_assert_eq!(hole, offset);
                        out.push(
                            Payload::new(
                                format!("{sample_name}{}.{}", m.place, m.attack),
                                format!("{sample_name}{}: {}", m.place, m.what),
                                bytes,
                            )
                            .at_place(format!("{sample_name}{}", m.place), offset + m.offset),
                        );
                    }
                }
                // A place that takes containers or several kinds (a tagged or untagged
                // enum, a flattened struct) may take anything: it gets the generic bombs too.
                // A validated leaf (a hash, a length) gets its sample's attacks only.
                let kinds: std::collections::BTreeSet<_> =
                    samples.iter().map(|s| s.kind() as u8).collect();
                let any = samples
                    .iter()
                    .any(|s| matches!(s, Sample::Array(_) | Sample::Map(_)))
                    || kinds.len() > 1;
                if any {
                    for p in generic_bombs() {
                        out.push(at(&p.id, p.what, p.bytes));
                    }
                }
            }
            Resolved::Shape(Shape::Int { signed, bits }) => {
                // A count or a size read from the input: its largest value (and, signed, its
                // smallest), which a type may trust to size an allocation.
                for (id, what, bytes) in int_extremes(*signed, *bits) {
                    out.push(at(id, what, bytes.into()));
                }
            }
            Resolved::Container(name, Container::Struct(fields)) => {
                for (id, what, bytes) in writer.struct_attacks(name, fields, depth) {
                    out.push(at(id, what, bytes));
                }
            }
            Resolved::Container(name, Container::Newtype(_)) if name == EXT_STRUCT_NAME => {
                for (id, what, header) in claims(&EXT_CLAIMS) {
                    out.push(at(&id, what, header.into()));
                }
            }
            Resolved::Container(_, Container::Enum(_)) => {
                out.push(at(
                    "unknown-variant-index",
                    "an enum variant index no variant has (4294967295)".into(),
                    PayloadBytes::from(&[0x81, 0xce, 0xff, 0xff, 0xff, 0xff, 0xc0]),
                ));
                out.push(at(
                    "unknown-variant-name",
                    "an enum variant name no variant has".into(),
                    str_bytes(UNKNOWN).into(),
                ));
            }
            _ => {}
        }
        if let Some(hostile) = wrong_kind(writer.resolve(&place.shape)) {
            out.push(at(
                "wrong-type",
                format!(
                    "{} where the type wants {}",
                    hostile.0,
                    place.shape.describe()
                ),
                hostile.1.into(),
            ));
        }
        if let Some((ancestor_steps, inner_steps)) = &place.recursion {
            out.push(Payload::new(
                format!("{}.nested", name(place)),
                format!("{}: nested {} deep", name(place), thousands(depth)),
                writer.nested(
                    &traced.root,
                    ancestor_steps,
                    inner_steps,
                    &place.shape,
                    depth,
                ),
            ));
        }
    }
    // Valid samples: the smallest document, one reaching each place (where it differs),
    // and one with every option, collection and map filled once; the latter also cut at
    // every offset.
    let minimal = writer.minimal(&traced.root, &mut Vec::new());
    let mut smallest = Payload::new(
        format!("{root_name}.valid-smallest"),
        format!("{root_name}: the smallest valid document"),
        minimal,
    );
    controls.retain(|c| {
        if c.bytes == smallest.bytes {
            smallest.reaches.extend(c.reaches.iter().cloned());
            false
        } else {
            true
        }
    });
    out.push(smallest);
    out.extend(controls);
    let full = writer.full(&traced.root, &mut Vec::new());
    if full.len() <= MAX_CUT_SAMPLE {
        for cut in 0..full.len() {
            out.push(Payload::new(
                format!("{root_name}.valid-cut-{cut}"),
                format!(
                    "{root_name}: a valid document cut after {cut} of its {} bytes",
                    full.len()
                ),
                full[..cut].to_vec(),
            ));
        }
    }
    out.push(Payload::new(
        format!("{root_name}.valid-full"),
        format!("{root_name}: a valid document with every option, sequence and map filled once"),
        full,
    ));
    (out, names, keys)
}

/// A Rust type name as its payloads are named: its last path segment without generics
/// (`Request` for `my_crate::Request<Vec<Param>>`), a tuple's elements so (`(String,u64)`).
fn short_name(type_name: &str) -> String {
    if let Some(inner) = type_name
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
    {
        let mut parts = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(short_name(inner[start..i].trim()));
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !inner[start..].trim().is_empty() {
            parts.push(short_name(inner[start..].trim()));
        }
        return format!("({})", parts.join(","));
    }
    let base = type_name.split('<').next().unwrap_or(type_name);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// The generic recursion bombs and length claims, each written at a place that accepts any
/// value.
fn generic_bombs() -> impl Iterator<Item = Payload> {
    generic().into_iter().filter(|p| {
        (p.id.starts_with("bomb-") || p.id.starts_with("huge-")) && !p.id.ends_with("-truncated")
    })
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The largest (and, signed, the smallest) value of an integer type, in its smallest form.
fn int_extremes(signed: bool, bits: u8) -> Vec<(&'static str, String, Vec<u8>)> {
    let bits = u32::from(bits.min(64));
    let mut out = Vec::new();
    let max = if signed {
        (1u64 << (bits - 1)) - 1
    } else if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    out.push((
        "int-max",
        format!(
            "the largest {}{bits}, {max}",
            if signed { "i" } else { "u" }
        ),
        uint_bytes(max),
    ));
    if signed {
        let min = if bits == 64 {
            i64::MIN
        } else {
            -(1i64 << (bits - 1))
        };
        out.push((
            "int-min",
            format!("the smallest i{bits}, {min}"),
            int_bytes(min),
        ));
    }
    out
}

/// A value of another kind than `shape` wants, and its name.
fn wrong_kind(resolved: Resolved<'_>) -> Option<(&'static str, Vec<u8>)> {
    Some(match resolved {
        Resolved::Shape(Shape::Int { .. }) | Resolved::Shape(Shape::Float(_)) => {
            ("a str", str_bytes("1"))
        }
        Resolved::Shape(Shape::Bool) | Resolved::Shape(Shape::Unit) => ("a str", str_bytes("x")),
        Resolved::Shape(Shape::Str) | Resolved::Shape(Shape::Char) => ("an integer", vec![0x2a]),
        Resolved::Shape(Shape::Bytes) => ("a map", vec![0x80]),
        Resolved::Shape(Shape::Seq(_)) | Resolved::Shape(Shape::Tuple(_)) => ("a map", vec![0x80]),
        Resolved::Shape(Shape::Map { .. }) => ("an integer", vec![0x2a]),
        Resolved::Shape(Shape::Option(_)) => ("a map", vec![0x81, 0xc0, 0xc0]),
        Resolved::Container(_, Container::Enum(_)) => ("a bool", vec![0xc3]),
        Resolved::Container(_, Container::Struct(_))
        | Resolved::Container(_, Container::TupleStruct(_)) => ("a bool", vec![0xc3]),
        _ => return None,
    })
}

/// One step from a place to a place inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    /// The `i`th field of a struct, tuple, tuple struct or variant.
    Field(usize),
    /// A sequence's element.
    Element,
    /// A map's key.
    Key,
    /// A map's value.
    Value,
    /// An option's content.
    Some,
    /// A newtype's content.
    Inner,
    /// An enum's `i`th variant.
    Variant(usize),
}

/// A place of the type: how to reach it, its path in words, its shape, and, when it recurses,
/// the steps from the recursion's start to it.
struct Place {
    steps: Vec<Step>,
    path: String,
    /// Its key, as the trace and the ledger name it.
    key: String,
    shape: Shape,
    /// For a place that names a container it is inside: the steps to that container, and
    /// from there to this place.
    recursion: Option<(Vec<Step>, Vec<Step>)>,
    /// For a variant of the enum at this place: which (the place is the enum written as it).
    variant: Option<usize>,
}

/// A struct field's name and shape, or a placeholder for a field index out of range.
trait OrDefaultField {
    fn unwrap_or_default_field(self) -> (String, Shape);
}

impl OrDefaultField for Option<(String, Shape)> {
    fn unwrap_or_default_field(self) -> (String, Shape) {
        self.unwrap_or_else(|| ("?".into(), Shape::Opaque))
    }
}

/// A shape with its named container looked up.
#[derive(Clone, Copy)]
enum Resolved<'a> {
    Shape(&'a Shape),
    Container(&'a String, &'a Container),
}

struct Writer<'a> {
    root: &'a Shape,
    containers: &'a BTreeMap<String, Container>,
    /// The containers whose smallest value ends (needs no value of itself).
    ends: BTreeMap<String, bool>,
}

/// Which containers can be written without recursing forever: the least fixed point.
fn ends(containers: &BTreeMap<String, Container>) -> BTreeMap<String, bool> {
    let mut ends: BTreeMap<String, bool> = containers.keys().map(|k| (k.clone(), false)).collect();
    loop {
        let mut changed = false;
        for (name, container) in containers {
            if ends[name] {
                continue;
            }
            let now = match container {
                Container::UnitStruct => true,
                Container::Newtype(s) => shape_ends(s, &ends),
                Container::TupleStruct(shapes) => all_end(shapes.iter(), &ends),
                Container::Struct(fields) => all_end(fields.iter().map(|(_, s)| s), &ends),
                Container::Enum(variants) => variants.iter().any(|(_, v)| match v {
                    Some(Variant::Unit) => true,
                    Some(Variant::Newtype(s)) => shape_ends(s, &ends),
                    Some(Variant::Tuple(shapes)) => all_end(shapes.iter(), &ends),
                    Some(Variant::Struct(fields)) => all_end(fields.iter().map(|(_, s)| s), &ends),
                    None => false,
                }),
            };
            if now {
                ends.insert(name.clone(), true);
                changed = true;
            }
        }
        if !changed {
            return ends;
        }
    }
}

fn all_end<'s>(shapes: impl IntoIterator<Item = &'s Shape>, ends: &BTreeMap<String, bool>) -> bool {
    shapes.into_iter().all(|s| shape_ends(s, ends))
}

fn shape_ends(shape: &Shape, ends: &BTreeMap<String, bool>) -> bool {
    match shape {
        Shape::Named(name) => ends.get(name).copied().unwrap_or(false),
        Shape::Tuple(shapes) => shapes.iter().all(|s| shape_ends(s, ends)),
        // Empty, or None: always an end.
        _ => true,
    }
}

impl<'a> Writer<'a> {
    fn resolve<'s>(&'s self, shape: &'s Shape) -> Resolved<'s> {
        match shape {
            Shape::Named(name) => match self.containers.get_key_value(name) {
                Some((name, container)) => Resolved::Container(name, container),
                None => Resolved::Shape(shape),
            },
            _ => Resolved::Shape(shape),
        }
    }

    /// The variants of an enum that end, in order, with their content.
    fn ending_variant(&self, variants: &'a [(String, Option<Variant>)]) -> Option<usize> {
        variants.iter().position(|(_, v)| match v {
            Some(Variant::Unit) => true,
            Some(Variant::Newtype(s)) => shape_ends(s, &self.ends),
            Some(Variant::Tuple(shapes)) => shapes.iter().all(|s| shape_ends(s, &self.ends)),
            Some(Variant::Struct(fields)) => fields.iter().all(|(_, s)| shape_ends(s, &self.ends)),
            None => false,
        })
    }

    /// Every place reachable from `shape` without entering a container twice; a place that
    /// names a container on its own path is a recursion, listed and not entered.
    fn places(
        &self,
        shape: &Shape,
        steps: &mut Vec<Step>,
        open: &mut Vec<(String, usize)>,
        out: &mut Vec<Place>,
    ) {
        let (path, key) = self.path_and_key(steps);
        let recursion = match shape {
            Shape::Named(name) => open
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, at)| (steps[..*at].to_vec(), steps[*at..].to_vec())),
            _ => None,
        };
        out.push(Place {
            steps: steps.clone(),
            path: path.clone(),
            key,
            shape: shape.clone(),
            recursion: recursion.clone(),
            variant: None,
        });
        if recursion.is_some() {
            return;
        }
        match shape {
            Shape::Option(inner) => self.child(Step::Some, inner, steps, open, out),
            Shape::Seq(inner) => self.child(Step::Element, inner, steps, open, out),
            Shape::Map { key, value } => {
                self.child(Step::Key, key, steps, open, out);
                self.child(Step::Value, value, steps, open, out);
            }
            Shape::Tuple(shapes) => {
                for (i, s) in shapes.iter().enumerate() {
                    self.child(Step::Field(i), s, steps, open, out);
                }
            }
            Shape::Named(name) => {
                let Some(container) = self.containers.get(name) else {
                    return;
                };
                open.push((name.clone(), steps.len()));
                match container {
                    Container::UnitStruct => {}
                    // An ext is one item on the wire: nothing inside it is a place of its own.
                    Container::Newtype(_) if name == EXT_STRUCT_NAME => {}
                    Container::Newtype(inner) => self.child(Step::Inner, inner, steps, open, out),
                    Container::TupleStruct(shapes) => {
                        for (i, s) in shapes.iter().enumerate() {
                            self.child(Step::Field(i), s, steps, open, out);
                        }
                    }
                    Container::Struct(fields) => {
                        for (i, (_, s)) in fields.iter().enumerate() {
                            self.child(Step::Field(i), s, steps, open, out);
                        }
                    }
                    Container::Enum(variants) => {
                        // Every variant is a place, its content or not.
                        for (v, (variant, _)) in variants.iter().enumerate() {
                            out.push(Place {
                                steps: steps.clone(),
                                path: format!("{path}::{variant}"),
                                key: format!("{name}::{variant}"),
                                shape: shape.clone(),
                                recursion: None,
                                variant: Some(v),
                            });
                        }
                        for (v, (_, content)) in variants.iter().enumerate() {
                            let fields: Vec<&Shape> = match content {
                                Some(Variant::Newtype(s)) => vec![s],
                                Some(Variant::Tuple(shapes)) => shapes.iter().collect(),
                                Some(Variant::Struct(fields)) => {
                                    fields.iter().map(|(_, s)| s).collect()
                                }
                                _ => Vec::new(),
                            };
                            for (i, s) in fields.into_iter().enumerate() {
                                steps.push(Step::Variant(v));
                                self.child(Step::Field(i), s, steps, open, out);
                                steps.pop();
                            }
                        }
                    }
                }
                open.pop();
            }
            _ => {}
        }
    }

    fn child(
        &self,
        step: Step,
        shape: &Shape,
        steps: &mut Vec<Step>,
        open: &mut Vec<(String, usize)>,
        out: &mut Vec<Place>,
    ) {
        steps.push(step);
        self.places(shape, steps, open, out);
        steps.pop();
    }

    /// A place's path in words (`.params[]`, `.meta?{}`, `::Named.value`), and its key as the trace names it (the innermost named
    /// container and the path inside it: `Inner.items[]`, `Event::Data.0`).
    fn path_and_key(&self, steps: &[Step]) -> (String, String) {
        let mut out = String::new();
        let mut key = String::new();
        let mut shape = self.root.clone();
        let mut steps = steps.iter();
        while let Some(step) = steps.next() {
            let before = out.len();
            let resolved = self.resolve(&shape);
            if let Resolved::Container(name, _) = resolved {
                key = name.clone();
            }
            let next = match (resolved, step) {
                (Resolved::Shape(Shape::Option(inner)), Step::Some) => {
                    out.push('?');
                    inner.as_ref().clone()
                }
                (Resolved::Shape(Shape::Seq(inner)), Step::Element) => {
                    out.push_str("[]");
                    inner.as_ref().clone()
                }
                (Resolved::Shape(Shape::Map { key, .. }), Step::Key) => {
                    out.push_str("{key}");
                    key.as_ref().clone()
                }
                (Resolved::Shape(Shape::Map { value, .. }), Step::Value) => {
                    out.push_str("{}");
                    value.as_ref().clone()
                }
                (Resolved::Shape(Shape::Tuple(shapes)), Step::Field(i))
                | (Resolved::Container(_, Container::TupleStruct(shapes)), Step::Field(i)) => {
                    out.push_str(&format!(".{i}"));
                    shapes.get(*i).cloned().unwrap_or(Shape::Opaque)
                }
                (Resolved::Container(_, Container::Newtype(inner)), Step::Inner) => {
                    out.push_str(".0");
                    inner.clone()
                }
                (Resolved::Container(_, Container::Struct(fields)), Step::Field(i)) => {
                    let (name, field) = fields.get(*i).cloned().unwrap_or_default_field();
                    out.push('.');
                    out.push_str(&name);
                    field
                }
                (Resolved::Container(_, Container::Enum(variants)), Step::Variant(v)) => {
                    let Some((name, content)) = variants.get(*v) else {
                        break;
                    };
                    out.push_str("::");
                    out.push_str(name);
                    let Some(Step::Field(i)) = steps.next() else {
                        break;
                    };
                    match content {
                        Some(Variant::Newtype(inner)) => inner.clone(),
                        Some(Variant::Tuple(shapes)) => {
                            out.push_str(&format!(".{i}"));
                            shapes.get(*i).cloned().unwrap_or(Shape::Opaque)
                        }
                        Some(Variant::Struct(fields)) => {
                            let (name, field) = fields.get(*i).cloned().unwrap_or_default_field();
                            out.push('.');
                            out.push_str(&name);
                            field
                        }
                        _ => break,
                    }
                }
                _ => break,
            };
            key.push_str(out.get(before..).unwrap_or_default());
            shape = next;
        }
        (out, key)
    }

    /// The attacks a struct invites wherever it sits (a struct, a struct variant): read as a
    /// map (to_vec_named's form), a field the type does not know holding a deep nesting or
    /// length claims, and a known field twice. `name` is the container whose fields these are.
    fn struct_attacks(
        &self,
        name: &str,
        fields: &[(String, Shape)],
        depth: usize,
    ) -> Vec<(&'static str, String, PayloadBytes)> {
        let open = || vec![name.to_string()];
        let known: Vec<u8> = fields
            .iter()
            .flat_map(|(field, shape)| {
                [str_bytes(field), self.minimal(shape, &mut open())].concat()
            })
            .collect();
        let with_unknown =
            |hostile: PayloadBytes| map_with_one_more(fields.len(), &known, UNKNOWN, hostile);
        let deep = PayloadBytes::repeat(&[0x91], depth).then(&[0xc0]);
        let mut out = vec![
            (
                "unknown-field-nested",
                format!(
                    "read as a map, an unknown field holding {} nested arrays",
                    thousands(depth)
                ),
                with_unknown(deep),
            ),
            (
                "unknown-field-claims",
                "read as a map, an unknown field holding 200 nested array 32 headers each \
                 claiming 4294967295 elements"
                    .into(),
                with_unknown([0xdd, 0xff, 0xff, 0xff, 0xff].repeat(200).into()),
            ),
        ];
        if let Some((first, shape)) = fields.first() {
            let field = [str_bytes(first), self.minimal(shape, &mut open())].concat();
            out.push((
                "duplicate-field",
                format!("read as a map, the field {first} twice"),
                [map_header(fields.len() + 1), known.clone(), field]
                    .concat()
                    .into(),
            ));
        }
        out
    }

    /// The smallest valid encoding of `shape`: nil for an option, empty collections, an enum's
    /// first variant that ends. `open` holds the containers being written (a guard: a
    /// container met again inside itself takes its ending form).
    fn minimal(&self, shape: &Shape, open: &mut Vec<String>) -> Vec<u8> {
        match shape {
            Shape::Unit | Shape::Opaque => vec![0xc0],
            Shape::Bool => vec![0xc2],
            Shape::Int { .. } => vec![0x00],
            Shape::Float(32) => vec![0xca, 0, 0, 0, 0],
            Shape::Float(_) => vec![0xcb, 0, 0, 0, 0, 0, 0, 0, 0],
            Shape::Char => str_bytes("a"),
            Shape::Str => str_bytes(""),
            Shape::Bytes => vec![0xc4, 0x00],
            Shape::Option(_) => vec![0xc0],
            Shape::Seq(_) => vec![0x90],
            Shape::Map { .. } => vec![0x80],
            Shape::Tuple(shapes) => self.sequence(shapes.iter(), open),
            Shape::Named(name) => self.container_minimal(name, open),
            Shape::Sampled(samples) => samples.first().map_or(vec![0xc0], |s| s.to_bytes()),
        }
    }

    fn sequence<'s>(
        &self,
        shapes: impl Iterator<Item = &'s Shape>,
        open: &mut Vec<String>,
    ) -> Vec<u8> {
        let shapes: Vec<&Shape> = shapes.collect();
        let mut out = array_header(shapes.len());
        for s in shapes {
            out.extend(self.minimal(s, open));
        }
        out
    }

    fn container_minimal(&self, name: &str, open: &mut Vec<String>) -> Vec<u8> {
        let Some(container) = self.containers.get(name) else {
            return vec![0xc0];
        };
        if name == EXT_STRUCT_NAME {
            return SMALLEST_EXT.to_vec();
        }
        if open.iter().filter(|n| *n == name).count() > 64 {
            // A container that cannot end: give up with nil rather than recurse forever.
            return vec![0xc0];
        }
        open.push(name.to_string());
        let out = match container {
            Container::UnitStruct => vec![0x90],
            Container::Newtype(inner) => self.minimal(inner, open),
            Container::TupleStruct(shapes) => self.sequence(shapes.iter(), open),
            Container::Struct(fields) => self.sequence(fields.iter().map(|(_, s)| s), open),
            Container::Enum(variants) => {
                let v = self.ending_variant(variants).unwrap_or(0);
                self.variant(variants, v, None, open)
            }
        };
        open.pop();
        out
    }

    /// Variant `v` of an enum, its content the smallest, or with field `hole` replaced.
    fn variant(
        &self,
        variants: &[(String, Option<Variant>)],
        v: usize,
        hole: Option<(usize, Vec<u8>)>,
        open: &mut Vec<String>,
    ) -> Vec<u8> {
        let Some((name, content)) = variants.get(v) else {
            return vec![0xc0];
        };
        let fields: Vec<&Shape> = match content {
            Some(Variant::Newtype(s)) => vec![s],
            Some(Variant::Tuple(shapes)) => shapes.iter().collect(),
            Some(Variant::Struct(fields)) => fields.iter().map(|(_, s)| s).collect(),
            _ => return str_bytes(name),
        };
        let encoded: Vec<Vec<u8>> = fields
            .iter()
            .enumerate()
            .map(|(i, s)| match &hole {
                Some((at, bytes)) if *at == i => bytes.clone(),
                _ => self.minimal(s, open),
            })
            .collect();
        let body = match content {
            Some(Variant::Newtype(_)) => encoded.concat(),
            _ => [array_header(encoded.len()), encoded.concat()].concat(),
        };
        [vec![0x81], str_bytes(name), body].concat()
    }

    /// The smallest document that reaches the place at `steps` from `shape`, with `hole`
    /// written there.
    fn with_hole(
        &self,
        shape: &Shape,
        steps: &[Step],
        hole: impl Into<PayloadBytes>,
    ) -> (PayloadBytes, usize) {
        let (before, after) = self.around(shape, steps, &mut Vec::new());
        let offset = before.len();
        (PayloadBytes::from(before).then(hole).then(after), offset)
    }

    /// What comes before and after the place at `steps` in the smallest document reaching it.
    fn around(&self, shape: &Shape, steps: &[Step], open: &mut Vec<String>) -> (Vec<u8>, Vec<u8>) {
        let Some((step, rest)) = steps.split_first() else {
            return (Vec::new(), Vec::new());
        };
        let (children, at, header): (Vec<&Shape>, usize, Vec<u8>) =
            match (self.resolve(shape), step) {
                (Resolved::Shape(Shape::Option(inner)), Step::Some) => {
                    return self.around(inner, rest, open);
                }
                (Resolved::Shape(Shape::Seq(inner)), Step::Element) => {
                    let (b, a) = self.around(inner, rest, open);
                    return ([vec![0x91], b].concat(), a);
                }
                (Resolved::Shape(Shape::Map { key, value }), Step::Key) => {
                    let (b, a) = self.around(key, rest, open);
                    return (
                        [vec![0x81], b].concat(),
                        [a, self.minimal(value, open)].concat(),
                    );
                }
                (Resolved::Shape(Shape::Map { key, value }), Step::Value) => {
                    let (b, a) = self.around(value, rest, open);
                    return ([vec![0x81], self.minimal(key, open), b].concat(), a);
                }
                (Resolved::Shape(Shape::Tuple(shapes)), Step::Field(i)) => {
                    (shapes.iter().collect(), *i, array_header(shapes.len()))
                }
                (Resolved::Container(_, Container::Newtype(inner)), Step::Inner) => {
                    return self.around(inner, rest, open);
                }
                (Resolved::Container(_, Container::TupleStruct(shapes)), Step::Field(i)) => {
                    (shapes.iter().collect(), *i, array_header(shapes.len()))
                }
                (Resolved::Container(_, Container::Struct(fields)), Step::Field(i)) => (
                    fields.iter().map(|(_, s)| s).collect(),
                    *i,
                    array_header(fields.len()),
                ),
                (Resolved::Container(_, Container::Enum(variants)), Step::Variant(v)) => {
                    let Some((Step::Field(i), rest)) = rest.split_first() else {
                        return (Vec::new(), Vec::new());
                    };
                    let Some((name, Some(content))) = variants.get(*v) else {
                        return (Vec::new(), Vec::new());
                    };
                    let fields: Vec<&Shape> = match content {
                        Variant::Newtype(s) => vec![s],
                        Variant::Tuple(shapes) => shapes.iter().collect(),
                        Variant::Struct(fields) => fields.iter().map(|(_, s)| s).collect(),
                        Variant::Unit => Vec::new(),
                    };
                    let Some(target) = fields.get(*i) else {
                        return (Vec::new(), Vec::new());
                    };
                    let (b, a) = self.around(target, rest, open);
                    let head = [vec![0x81], str_bytes(name)].concat();
                    if matches!(content, Variant::Newtype(_)) {
                        return ([head, b].concat(), a);
                    }
                    let before: Vec<u8> = fields[..*i]
                        .iter()
                        .flat_map(|s| self.minimal(s, open))
                        .collect();
                    let after: Vec<u8> = fields[i + 1..]
                        .iter()
                        .flat_map(|s| self.minimal(s, open))
                        .collect();
                    return (
                        [head, array_header(fields.len()), before, b].concat(),
                        [a, after].concat(),
                    );
                }
                _ => return (Vec::new(), Vec::new()),
            };
        let Some(target) = children.get(at) else {
            return (Vec::new(), Vec::new());
        };
        let (b, a) = self.around(target, rest, open);
        let before: Vec<u8> = children[..at]
            .iter()
            .flat_map(|s| self.minimal(s, open))
            .collect();
        let after: Vec<u8> = children[at + 1..]
            .iter()
            .flat_map(|s| self.minimal(s, open))
            .collect();
        ([header, before, b].concat(), [a, after].concat())
    }

    /// The recursive path from the container at `ancestor` to the place at `inner` (which
    /// names that container again), repeated `depth` times, ending in the
    /// container's smallest value, inside the smallest document reaching the container.
    fn nested(
        &self,
        root: &Shape,
        ancestor: &[Step],
        inner: &[Step],
        shape: &Shape,
        depth: usize,
    ) -> PayloadBytes {
        let (outer_before, outer_after) = self.around(root, ancestor, &mut Vec::new());
        let (before, after) = self.around(shape, inner, &mut Vec::new());
        let end = self.minimal(shape, &mut Vec::new());
        PayloadBytes::from(outer_before)
            .then_repeat(&before, depth)
            .then(end)
            .then_repeat(&after, depth)
            .then(outer_after)
    }

    /// A document with every option, sequence and map filled once (one element, one entry),
    /// each enum its first variant that ends, and containers met inside themselves smallest.
    fn full(&self, shape: &Shape, open: &mut Vec<String>) -> Vec<u8> {
        match shape {
            Shape::Char => str_bytes("é"),
            Shape::Str => str_bytes("héllo"),
            Shape::Bytes => vec![0xc4, 0x02, 0x00, 0xff],
            Shape::Int { signed: true, .. } => vec![0xff],
            Shape::Int { .. } => vec![0x07],
            Shape::Bool => vec![0xc3],
            Shape::Option(inner) => self.full(inner, open),
            Shape::Seq(inner) => [vec![0x91], self.full(inner, open)].concat(),
            Shape::Map { key, value } => {
                [vec![0x81], self.full(key, open), self.full(value, open)].concat()
            }
            Shape::Tuple(shapes) => {
                let mut out = array_header(shapes.len());
                for s in shapes {
                    out.extend(self.full(s, open));
                }
                out
            }
            Shape::Named(name) if name == EXT_STRUCT_NAME => SMALLEST_EXT.to_vec(),
            Shape::Named(name) if !open.contains(name) => {
                let Some(container) = self.containers.get(name) else {
                    return vec![0xc0];
                };
                open.push(name.clone());
                let out = match container {
                    Container::UnitStruct => vec![0x90],
                    Container::Newtype(inner) => self.full(inner, open),
                    Container::TupleStruct(shapes) => {
                        let mut out = array_header(shapes.len());
                        for s in shapes {
                            out.extend(self.full(s, open));
                        }
                        out
                    }
                    Container::Struct(fields) => {
                        let mut out = array_header(fields.len());
                        for (_, s) in fields {
                            out.extend(self.full(s, open));
                        }
                        out
                    }
                    Container::Enum(variants) => {
                        let v = self.ending_variant(variants).unwrap_or(0);
                        self.variant(variants, v, None, open)
                    }
                };
                open.pop();
                out
            }
            _ => self.minimal(shape, open),
        }
    }
}
