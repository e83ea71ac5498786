//! A type's shape in serde's data model, traced from its `Deserialize` alone: which places
//! hold collections, which recurse, which are enums, structs or options. The hostile payloads
//! of [`for_type`](crate::for_type) are generated from it.
//!
//! The tracer is a serde `Deserializer` that hands the type the smallest value of every kind
//! it asks for and records what was asked where. It runs the type's `Deserialize` several
//! times: once per enum variant to see each variant's content, and again wherever a first run
//! recursed back into a container it was already inside (it then hands out an empty sequence,
//! map or `None`, or an enum variant known to end). A place read with `deserialize_any`
//! (an untagged or internally tagged enum, a flattened struct, a self-describing value such
//! as `hardpack::Value` or `serde_json::Value`) cannot say what it wants: it is recorded as
//! [`Shape::Opaque`] and handed one probe value after another (nil, false, 0, "", [], {})
//! until the type accepts one, so the rest of the type is still traced.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::Deserialize;

pub use crate::sample::Sample;
use crate::search::probes;

mod aliases;
mod passage;
mod recording;
mod state;

pub(crate) use passage::passage;

use recording::{Recording, ShapeOf, Tracer};
use state::{Search, Searching, State, TraceFailure, RECURSED};

/// What a place of a type holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `()`.
    Unit,
    /// `bool`.
    Bool,
    /// An integer of `bits` bits, signed or not.
    Int {
        /// Whether it takes negative values.
        signed: bool,
        /// 8 to 128.
        bits: u8,
    },
    /// `f32` (32) or `f64` (64).
    Float(u8),
    /// `char`.
    Char,
    /// A str (`String`, `&str`).
    Str,
    /// Bytes (`serde_bytes`).
    Bytes,
    /// `Option<T>`.
    Option(Box<Shape>),
    /// A sequence (`Vec<T>`, a set).
    Seq(Box<Shape>),
    /// A map.
    Map {
        /// The keys.
        key: Box<Shape>,
        /// The values.
        value: Box<Shape>,
    },
    /// A tuple or fixed-size array.
    Tuple(Vec<Shape>),
    /// A named struct or enum, described in the trace's containers.
    Named(String),
    /// A place read with `deserialize_any` (or `deserialize_ignored_any`) that accepts every
    /// kind of value (`hardpack::Value`, `serde_json::Value`): it gets the generic payloads.
    Opaque,
    /// A place the tracer cannot see into or whose `Deserialize` refuses its kind's
    /// smallest value (an internally, adjacently or untagged enum, a flattened struct, a
    /// validating hand-written `Deserialize`), with the values it was found to accept, one
    /// per variant where it has variants. Its attacks are these samples mutated place by
    /// place ([`crate::mutate`]).
    Sampled(Vec<Sample>),
}

impl Shape {
    /// What the shape is, in words: `a str`, `u8`, `a sequence`, a container's name.
    pub fn describe(&self) -> String {
        match self {
            Shape::Unit => "()".into(),
            Shape::Bool => "a bool".into(),
            Shape::Int { signed, bits } => format!("{}{bits}", if *signed { "i" } else { "u" }),
            Shape::Float(bits) => format!("f{bits}"),
            Shape::Char => "a char".into(),
            Shape::Str => "a str".into(),
            Shape::Bytes => "bytes".into(),
            Shape::Option(_) => "an Option".into(),
            Shape::Seq(_) => "a sequence".into(),
            Shape::Map { .. } => "a map".into(),
            Shape::Tuple(_) => "a tuple".into(),
            Shape::Named(name) => name.clone(),
            Shape::Opaque => "anything".into(),
            Shape::Sampled(_) => "what its samples hold".into(),
        }
    }
}

/// A named struct or enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    /// `struct A;`
    UnitStruct,
    /// `struct A(T);`
    Newtype(Shape),
    /// `struct A(T, U);`
    TupleStruct(Vec<Shape>),
    /// `struct A { a: T }`, its fields in order.
    Struct(Vec<(String, Shape)>),
    /// An enum: every variant in order, with its content (`None` for a variant the trace
    /// never saw, which is every variant the type names but refuses to read).
    Enum(Vec<(String, Option<Variant>)>),
}

/// An enum variant's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `A`
    Unit,
    /// `A(T)`
    Newtype(Shape),
    /// `A(T, U)`
    Tuple(Vec<Shape>),
    /// `A { a: T }`
    Struct(Vec<(String, Shape)>),
}

/// A traced type: the shape of its root and of every named container it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// The type's name as Rust spells it (`my_crate::Request`).
    pub type_name: &'static str,
    /// The root's shape.
    pub root: Shape,
    /// Each named container, by the name serde gives it.
    pub containers: BTreeMap<String, Container>,
    /// How many times the tracer ran the type's `Deserialize`.
    pub runs: usize,
    /// Places the trace could see only in part, and why: an untagged enum, whose refusal
    /// names no field or variant, so its variants that are not a plain value (a struct, a
    /// sequence) are found only by a sample.
    pub gaps: Vec<String>,
    /// The places of the type the trace did not see: enum variants it could not build,
    /// and places that accepted every value it tried, so that what they hold inside was
    /// never asked for.
    pub unseen: Vec<Unseen>,
    /// Every request the type's `Deserialize` made in any run, and what the trace made of it.
    pub nodes: Vec<Node>,
    /// How the trace named what it met, for a sample's passage to name it alike.
    pub(crate) names: Names,
}

/// A request the type's `Deserialize` made, in any run of the trace: a node of the check's
/// ledger ([`crate::Ledger`]). Its place is its key: the innermost named container and the
/// path inside it (`Inner.items[]`, `Event::Data.0`), the same wherever the container sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The place: `Request.params[]`, `Event::Data`, `Inner.id`.
    pub place: String,
    /// What was asked there: `a str`, `u8`, `a sequence`, `struct Inner`, `a variant`.
    pub what: String,
    /// It is an enum's variant (listed by serde, or named by a tag's refusal).
    pub variant: bool,
    /// What the trace made of it.
    pub trace: NodeTrace,
}

/// What the trace made of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeTrace {
    /// A run of the type's `Deserialize` that went through passed a value through it.
    Built,
    /// Every run that asked it was refused; the last refusal.
    Refused(String),
    /// Listed (an enum's variant) but no run got to it.
    NeverReached,
    /// It accepts any value: what it holds inside is unseen (why, in words).
    Opaque(String),
    /// It refused some values without saying what it wants (an untagged enum): its other
    /// variants are seen only through a sample.
    SeenInPart(String),
    /// A variant read through serde's buffering that every value accepted, the trace's and
    /// the samples', held with a collection empty, an option none, or an enum inside it in
    /// only some of its variants: the rest was never built, whatever names the variant.
    PartlyBuilt(String),
}

/// A place of a type the trace did not see (or not inside), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unseen {
    /// The place, by its container: `Entry::Local`, `Registry.entries[]`.
    pub place: String,
    /// What it is.
    pub kind: UnseenKind,
    /// Why, and what shows it: the refusal the type gave, what the place may be.
    pub why: String,
}

/// What kind of place the trace did not see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnseenKind {
    /// An enum variant the tracer could not build: the type refused every value tried
    /// inside it, or no run reached it. Nothing shaped by the type reaches it; a sample
    /// holding it (`.sample(&value)`) gives the tracer values it accepts.
    Variant,
    /// A place read with `deserialize_any` through serde's buffering (an untagged or
    /// internally tagged enum, a flattened field) that accepted every kind of value tried:
    /// a catch-all variant took them, so the variants with an inside were never asked for.
    /// Only a sample shows what it holds.
    AcceptedAnything,
    /// A self-describing value (`serde_json::Value`, `hardpack::Value`, or a hand-written
    /// visitor of every kind): it accepts any document, and gets the generic payloads in its
    /// place. Listed, not a failure.
    AnyValue,
}

/// Why a type's shape could not be traced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The type.
    pub type_name: &'static str,
    /// What stopped the trace.
    pub reason: String,
    /// Every request the type's `Deserialize` made before the trace gave up.
    pub nodes: Vec<Node>,
    /// How the trace named what it met.
    pub(crate) names: Box<Names>,
}

/// How a trace named what it met: the key of each type by its serde name and visitor type (a
/// generic with two parameters is two keys), the structs it handed samples instead of
/// reading them field by field (an adjacently tagged enum, a struct with a flattened field),
/// and the field each name of a struct with aliases stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Names {
    pub(crate) identities: BTreeMap<(String, &'static str), String>,
    pub(crate) sampled_structs: std::collections::BTreeSet<String>,
    /// For a struct whose field names serde lists with their aliases (each field's names
    /// sorted, so a field may come after its own alias), the field each listed name reads,
    /// by the name serde refuses it by when it is given twice.
    pub(crate) aliases: Aliases,
    /// The keys a tagged enum's tag was found under: a map's entry under another key that
    /// holds a variant's name (an unknown key the search added) names no variant.
    pub(crate) tag_keys: std::collections::BTreeSet<String>,
}

/// What serde lists for a struct with aliases: the field each listed name reads.
pub(crate) type Aliases = BTreeMap<Vec<&'static str>, Vec<String>>;

impl Names {
    /// The names of a struct's fields in order, given the names serde lists for it.
    pub(crate) fn field_names(&self, listed: &[&'static str]) -> Vec<String> {
        field_names(&self.aliases, listed)
    }

    /// The field a key names, in a struct whose names serde lists as `listed`.
    pub(crate) fn field_named(&self, listed: &[&'static str], key: &str) -> String {
        self.aliases
            .get(listed)
            .and_then(|fields| fields.get(listed.iter().position(|f| *f == key)?))
            .cloned()
            .unwrap_or_else(|| key.to_string())
    }
}

/// [`Names::field_names`]: a struct without aliases is named by what serde lists.
pub(crate) fn field_names(aliases: &Aliases, listed: &[&'static str]) -> Vec<String> {
    match aliases.get(listed) {
        Some(fields) => {
            let mut names = fields.clone();
            names.dedup();
            names
        }
        None => listed.iter().map(|f| f.to_string()).collect(),
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot trace the serde shape of `{}`: {}; the check runs the generic payloads and \
             the samples given",
            self.type_name, self.reason
        )
    }
}

impl std::error::Error for TraceError {}

/// How many times the type's `Deserialize` may run before the trace gives up: one run per
/// enum variant, per recursion found and per value tried at a place that searches one.
const MAX_RUNS: usize = 4_000;

/// Traces `T`'s shape. `T` may borrow (`&'a str`, `Cow` with `borrow`): the tracer hands
/// borrowed values, so any `T: Deserialize<'static>` can be traced, which every
/// `DeserializeOwned` type is.
pub fn trace<T: Deserialize<'static>>() -> Result<Traced, TraceError> {
    trace_with::<T>(&[])
}

/// [`trace`], trying the values of valid documents of the type (samples) where a value is
/// refused: a leaf that a hand-written `Deserialize` validates (a range syntax, a version)
/// is handed the samples' values of its kind first, so a variant holding it is built.
pub fn trace_with<T: Deserialize<'static>>(samples: &[Sample]) -> Result<Traced, TraceError> {
    trace_naming(
        std::any::type_name::<T>(),
        &mut |state, shape| deserialize::<T>(state, shape).map(|_| ()),
        samples,
        None,
    )
}

/// One run of a type's `Deserialize` on the tracer: the one part of a trace that is the
/// type's, so that the rest is compiled once, not once for each type traced.
type RunOnce<'a> = dyn FnMut(&mut State, &mut ShapeOf) -> Result<(), TraceFailure> + 'a;

thread_local! {
    /// Whether the search hands a value where a value it accepted holds nil (an `Option`
    /// left `None`, whose inside is otherwise never built). Off for a type that a value there
    /// sends reading itself forever, inside serde's buffering (see [`crate::Check::run`]).
    static FILLS_NILS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Runs `f` with the search filling nils or not.
pub(crate) fn filling_nils<R>(fill: bool, f: impl FnOnce() -> R) -> R {
    let before = FILLS_NILS.with(|c| c.replace(fill));
    let result = f();
    FILLS_NILS.with(|c| c.set(before));
    result
}

/// Whether this thread's search fills nils.
pub(crate) fn fills_nils() -> bool {
    FILLS_NILS.with(std::cell::Cell::get)
}

/// [`trace_with`], naming the fields of each struct with aliases by what each listed name
/// reads: as `aliases` says, or (`None`) as the trace learns from the struct itself, tracing
/// again with what it learnt.
fn trace_naming(
    type_name: &'static str,
    run_once: &mut RunOnce<'_>,
    samples: &[Sample],
    aliases: Option<Aliases>,
) -> Result<Traced, TraceError> {
    let learning = aliases.is_none();
    let mut state = State {
        aliases: aliases.unwrap_or_default(),
        ..State::default()
    };
    for sample in samples {
        for path in sample.paths() {
            if let Some(node) = sample.at(&path) {
                let values = if matches!(node, Sample::Array(_) | Sample::Map(_)) {
                    &mut state.sample_values
                } else {
                    &mut state.from_samples
                };
                if !values.contains(node) {
                    values.push(node.clone());
                }
            }
        }
    }
    let mut root = None;
    let mut last_error = None;
    let mut runs = 0;
    while runs < MAX_RUNS {
        runs += 1;
        state.begin_run();
        let mut shape = ShapeOf::default();
        // A Deserialize that panics on a value (an `unimplemented!` branch) is a finding, not
        // the end of the trace: the value is kept to be written as a payload.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_once(&mut state, &mut shape)
        }))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            state.panicked();
            Err(TraceFailure(format!("panicked: {message}")))
        });
        let changed = match result {
            Ok(_) => {
                root = shape.0;
                last_error = None;
                if state.accept_run() {
                    // A place searching further (another variant of what it accepts).
                    continue;
                }
                false
            }
            Err(e) => {
                let recovered = state.recover(&e);
                last_error = Some(e.0);
                recovered
            }
        };
        state.finish_exploring(changed);
        if changed || state.exploring.is_some() {
            continue;
        }
        // Every variant of every enum met is tried, wherever it was met first; after a
        // failure that nothing could get past, only if some run went through.
        if (root.is_some() || last_error.is_none()) && state.explore_next_variant() {
            continue;
        }
        break;
    }
    if learning {
        // Each struct met is learnt by what it answers (one whose runs showed it has no
        // alias is asked nothing).
        let met = state.structs.clone();
        let mut asked = false;
        let learnt = aliases::learn_all(&met, |listed, question| {
            asked = true;
            // Asked first with each place read as the searches stand; where that run stops
            // before the struct, again with none: a trace that failed leaves its searches
            // handing values that refuse (a map without a field at the root).
            for without_searches in [false, true] {
                runs += 1;
                let escapes = state.escapes.clone();
                // A place on the way to the struct that a failed trace left escaping (an
                // `Option` handed `None`) would keep the run from meeting it.
                let place = &met[listed].place;
                state
                    .escapes
                    .retain(|escaping| !is_on_the_way(escaping, place));
                let searches = without_searches.then(|| std::mem::take(&mut state.searches));
                state.begin_run();
                state.exploring = met[listed].within.clone();
                state.question = Some((listed, question.clone()));
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_once(&mut state, &mut ShapeOf::default())
                }));
                state.question = None;
                // The places a question emptied (to hand the struct the smallest value of
                // each field) are emptied for that question only: one may lead to the next
                // struct asked.
                state.escapes = escapes;
                if let Some(searches) = searches {
                    state.searches = searches;
                }
                if let Some(answer) = state.answer.take() {
                    return Some(answer);
                }
            }
            None
        });
        if asked {
            // Traced again, every request named by the field it reads, and nothing of the
            // trace left as the questions' runs left it (where a search stood, what they
            // read).
            return trace_naming(type_name, run_once, samples, Some(learnt)).map(|mut traced| {
                traced.runs += runs;
                traced
            });
        }
    }
    match (root, last_error) {
        (Some(root), _) => {
            let unseen = state.unseen();
            let nodes = state.nodes();
            let names = state.names();
            let mut traced = Traced {
                type_name,
                root,
                containers: state.containers,
                runs,
                gaps: state
                    .gaps
                    .iter()
                    .map(|(key, said)| {
                        format!(
                            "`{}` refuses without saying what it wants ({said}): its variants \
                             that are not a plain value are reached only by a sample",
                            if key.is_empty() { "the root" } else { key }
                        )
                    })
                    .collect(),
                unseen,
                nodes,
                names,
            };
            apply_samples(&mut traced, &state.searches);
            Ok(traced)
        }
        (None, reason) => Err(TraceError {
            type_name,
            nodes: state.nodes(),
            names: Box::new(state.names()),
            reason: match reason.as_deref() {
                Some(RECURSED) => "it recurses with no place to stop (no Option, sequence, \
                    map or enum variant that ends)"
                    .into(),
                Some(reason) => format!(
                    "its Deserialize refused every value tried ({runs} runs){}: {reason}",
                    state
                        .last_blamed
                        .as_deref()
                        .map(|p| format!(
                            ", the last at `{}`",
                            if p.is_empty() { "the root" } else { p }
                        ))
                        .unwrap_or_default()
                ),
                None => format!("no run of its Deserialize ended in {MAX_RUNS} tries"),
            },
        }),
    }
}

/// Runs `T`'s `Deserialize` once on the tracer.
fn deserialize<T: Deserialize<'static>>(
    state: &mut State,
    shape: &mut ShapeOf,
) -> Result<T, TraceFailure> {
    T::deserialize(Recording {
        tracer: Tracer {
            state,
            place: String::new(),
            scope: String::new(),
            rel: String::new(),
        },
        shape,
    })
}

/// Puts what the searches found into the shapes: a place that accepts only values other
/// than its kind's smallest, or that the tracer could not see into, holds the samples it
/// accepted ([`Shape::Sampled`]); one that accepts every kind of value stays
/// [`Shape::Opaque`].
fn apply_samples(traced: &mut Traced, searches: &BTreeMap<String, Search>) {
    let found = |key: &str| -> Option<Shape> {
        let search = searches.get(key)?;
        // A sample's value as given is attacked through the sample already. Where it is all
        // the place accepted, the first still stands there in the documents written to reach
        // other places (inside a recursion no sample holds).
        let mut accepted: Vec<Sample> = search
            .accepted
            .iter()
            .filter(|a| !search.given.contains(a))
            .cloned()
            .collect();
        if accepted.is_empty() {
            accepted.extend(search.accepted.first().cloned());
        }
        if !search.sampling || accepted.is_empty() {
            return None;
        }
        // What made it panic is kept beside what it accepted.
        let with_panics = || {
            let mut all = accepted.clone();
            all.extend(search.panicked.iter().cloned());
            Shape::Sampled(all)
        };
        if !search.panicked.is_empty() {
            return Some(with_panics());
        }
        match search.kind {
            Searching::Leaf if accepted.first() == Some(&search.default) => None,
            Searching::Any if probes().iter().all(|p| accepted.contains(p)) => None,
            _ => Some(Shape::Sampled(accepted)),
        }
    };
    let mut root = traced.root.clone();
    replace_sampled(&mut root, "", &found);
    traced.root = root;
    for (name, container) in traced.containers.iter_mut() {
        match container {
            Container::UnitStruct => {}
            Container::Newtype(inner) => replace_sampled(inner, &format!("{name}.0"), &found),
            Container::TupleStruct(shapes) => {
                for (i, s) in shapes.iter_mut().enumerate() {
                    replace_sampled(s, &format!("{name}.{i}"), &found);
                }
            }
            Container::Struct(fields) => {
                for (field, s) in fields.iter_mut() {
                    replace_sampled(s, &format!("{name}.{field}"), &found);
                }
            }
            Container::Enum(variants) => {
                for (variant, content) in variants.iter_mut() {
                    let at = format!("{name}::{variant}");
                    match content {
                        Some(Variant::Newtype(s)) => replace_sampled(s, &at, &found),
                        Some(Variant::Tuple(shapes)) => {
                            for (i, s) in shapes.iter_mut().enumerate() {
                                replace_sampled(s, &format!("{at}.{i}"), &found);
                            }
                        }
                        Some(Variant::Struct(fields)) => {
                            for (field, s) in fields.iter_mut() {
                                replace_sampled(s, &format!("{at}.{field}"), &found);
                            }
                        }
                        Some(Variant::Unit) | None => {}
                    }
                }
            }
        }
    }
}

/// Replaces the shape at `key`, and the shapes inside it up to the next named container,
/// by what their search found.
fn replace_sampled(shape: &mut Shape, key: &str, found: &dyn Fn(&str) -> Option<Shape>) {
    if let Some(sampled) = found(key) {
        *shape = sampled;
        return;
    }
    match shape {
        Shape::Option(inner) => replace_sampled(inner, &format!("{key}?"), found),
        Shape::Seq(inner) => replace_sampled(inner, &format!("{key}[]"), found),
        Shape::Map { key: k, value } => {
            replace_sampled(k, &format!("{key}{{key}}"), found);
            replace_sampled(value, &format!("{key}{{}}"), found);
        }
        Shape::Tuple(shapes) => {
            for (i, s) in shapes.iter_mut().enumerate() {
                replace_sampled(s, &format!("{key}.{i}"), found);
            }
        }
        _ => {}
    }
}

/// Whether `place` is `to` or on the way to it: `to`'s path goes on past `place` with a step
/// of its own (a field `.f`, an element `[]`, an option's inside `?`, a map's `{}`, a variant
/// `::V`), so `.f1` is not on the way to `.f10`.
fn is_on_the_way(place: &str, to: &str) -> bool {
    to.strip_prefix(place).is_some_and(|rest| {
        place.is_empty() || rest.is_empty() || rest.starts_with(['.', '?', '[', '{', ':'])
    })
}

#[cfg(test)]
mod tests {
    use super::is_on_the_way;

    #[test]
    fn a_place_is_on_the_way_to_what_its_path_steps_into_and_no_further() {
        for (place, to) in [
            ("", ".f1"),
            (".f1", ".f1"),
            (".f1", ".f1.f0"),
            (".f1", ".f1?"),
            (".f1?", ".f1??.x"),
            (".items", ".items[]"),
            (".map", ".map{}"),
            (".map", ".map{key}"),
            (".kind", ".kind::Link.0"),
        ] {
            assert!(is_on_the_way(place, to), "{place} on the way to {to}");
        }
        for (place, to) in [
            (".f1", ".f10"),
            (".f1", ".f"),
            (".f1?", ".f1"),
            (".a.b", ".a.c.b"),
            (".0", ".01"),
        ] {
            assert!(!is_on_the_way(place, to), "{place} not on the way to {to}");
        }
    }
}
