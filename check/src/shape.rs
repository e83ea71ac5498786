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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{
    self, Deserialize, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

pub use crate::sample::Sample;
use crate::sample::SampleDeserializer;
use crate::search::{alternatives, probes, refine, Branch, Candidate};

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
const MAX_RUNS: usize = 20_000;

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
    let type_name = std::any::type_name::<T>();
    let mut state = State::default();
    for sample in samples {
        for path in sample.paths() {
            if let Some(node) = sample.at(&path) {
                if !matches!(node, Sample::Array(_) | Sample::Map(_))
                    && !state.from_samples.contains(node)
                {
                    state.from_samples.push(node.clone());
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
            T::deserialize(Recording {
                tracer: Tracer {
                    state: &mut state,
                    place: String::new(),
                    scope: String::new(),
                    rel: String::new(),
                },
                shape: &mut shape,
            })
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
    match (root, last_error) {
        (Some(root), _) => {
            let unseen = state.unseen();
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
            };
            apply_samples(&mut traced, &state.searches);
            Ok(traced)
        }
        (None, reason) => Err(TraceError {
            type_name,
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

/// An error of the tracer, or of the type's `Deserialize` during a trace.
#[derive(Debug)]
struct TraceFailure(String);

impl fmt::Display for TraceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceFailure {}

impl de::Error for TraceFailure {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        TraceFailure(msg.to_string())
    }
}

/// The error with which a run stops where it recursed into a container it is inside.
const RECURSED: &str = "hardpack-check: recursed";

/// How many containers of one serde name (each a different instance of a generic type) a
/// run may be inside before it counts as recursing.
const MAX_SAME_NAME_OPEN: usize = 16;

/// The generic arguments at the end of a visitor's type name, each path cut to its last
/// segment: `<Inner>` for `..::deserialize::__Visitor<my_crate::Inner>`; empty when it has
/// none.
fn generic_arguments(visitor: &str) -> String {
    let Some(open) = visitor
        .strip_suffix('>')
        .and_then(|_| {
            let mut depth = 0usize;
            visitor.char_indices().rev().find(|&(_, c)| {
                match c {
                    '>' => depth += 1,
                    '<' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c == '<' && depth == 0
            })
        })
        .map(|(at, _)| at)
    else {
        return String::new();
    };
    let mut out = String::new();
    let mut token = String::new();
    for c in visitor[open..].chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            token.push(c);
        } else {
            out.push_str(token.rsplit("::").next().unwrap_or(""));
            token.clear();
            out.push(c);
        }
    }
    out.push_str(token.rsplit("::").next().unwrap_or(""));
    out
}

/// How many values a place that searches may try.
const MAX_TRIES: usize = 400;
/// How many accepted values a place that searches keeps (one per variant, mostly).
const MAX_ACCEPTED: usize = 12;

/// What a place that searches for a value it accepts is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Searching {
    /// A leaf (int, str, bytes, ...): its smallest value first, then others of its kind.
    Leaf,
    /// A place read with `deserialize_any`: one value of each kind, then what refusals ask.
    Any,
    /// A map, a sequence or a struct: traced as a type until a refusal blames it (a struct
    /// with a flattened field, a visitor that wants more elements, an adjacently tagged
    /// enum), then handed samples.
    Collection,
}

/// A place's search for the values it accepts.
struct Search {
    kind: Searching,
    /// Whether it hands samples (always, but for a collection still traced as a type).
    sampling: bool,
    /// What it hands this run.
    current: Candidate,
    /// What it tries next, the next last.
    stack: Vec<Candidate>,
    /// How many refinements it made (each numbers its candidates' lineage).
    refinements: u32,
    /// What it has tried, encoded.
    tried: BTreeSet<Vec<u8>>,
    accepted: Vec<Sample>,
    /// The first value it handed (a leaf's smallest value of its kind).
    default: Sample,
    tries: usize,
    /// Done: it hands its first accepted value from now on.
    settled: bool,
    /// For a tag read as an identifier inside a struct: the struct's place, which takes
    /// over the search once the refusal names the variants.
    parent_struct: Option<String>,
    /// Values on which the type's Deserialize panicked: written as payloads, they show it.
    panicked: Vec<Sample>,
    /// For a place read with `deserialize_any`: whether serde's own buffering read it (an
    /// untagged or internally tagged enum, a flattened field), not a type's own visitor.
    buffered: bool,
}

impl Search {
    fn new(kind: Searching, first: Sample, then: Vec<Sample>) -> Self {
        // The first values are one of each kind: for a place read with deserialize_any, each
        // may be a variant of an untagged enum.
        let mut stack: Vec<Candidate> = then
            .into_iter()
            .enumerate()
            .map(|(i, value)| {
                let mut c = Candidate::new(value);
                c.lineage.push(Branch {
                    refinement: 0,
                    index: i as u32 + 1,
                    variant: true,
                });
                c
            })
            .collect();
        stack.reverse();
        Search {
            kind,
            sampling: kind != Searching::Collection,
            current: {
                let mut c = Candidate::new(first.clone());
                c.lineage.push(Branch {
                    refinement: 0,
                    index: 0,
                    variant: true,
                });
                c
            },
            stack,
            refinements: 0,
            tried: BTreeSet::new(),
            accepted: Vec::new(),
            default: first,
            tries: 1,
            settled: false,
            parent_struct: None,
            panicked: Vec::new(),
            buffered: false,
        }
    }

    /// The next untried candidate, if any is left within the budget.
    fn next(&mut self) -> bool {
        while let Some(next) = self.stack.pop() {
            if self.tries >= MAX_TRIES {
                break;
            }
            if self.tried.insert(next.tree.to_bytes()) {
                self.current = next;
                self.tries += 1;
                return true;
            }
        }
        false
    }

    /// Puts what a refinement made on the stack, the first to be tried next.
    fn push_refined(&mut self, refined: Vec<Candidate>) {
        self.refinements += 1;
        let refinement = self.refinements;
        for (i, mut c) in refined.into_iter().enumerate().rev() {
            c.lineage.push(Branch {
                refinement,
                index: i as u32,
                variant: c.names_variant,
            });
            c.names_variant = false;
            self.stack.push(c);
        }
    }

    /// Back to what it is known to accept (or its first value), for good.
    fn settle(&mut self) {
        self.settled = true;
        self.current = Candidate::new(
            self.accepted
                .first()
                .cloned()
                .unwrap_or_else(|| self.default.clone()),
        );
    }

    /// The current candidate was refused with `message`: tries the next. False when none is
    /// left.
    fn blame(&mut self, message: &str) -> bool {
        if self.settled {
            return false;
        }
        self.tried.insert(self.current.tree.to_bytes());
        self.push_refined(refine(&self.current, message));
        if self.next() {
            return true;
        }
        self.settle();
        false
    }
}

/// What the trace knows of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Status {
    /// No run took it yet.
    Untried,
    /// A run went through it: its content is recorded.
    Traced,
    /// The type refused every value tried inside it, the last refusal this.
    Refused(String),
    /// No run that went through got to it.
    Unreached,
}

/// What the trace knows of one enum.
struct EnumState {
    variants: Vec<&'static str>,
    status: Vec<Status>,
    /// Variants runs no longer take by default (refused, or refused after being traced).
    avoid: BTreeSet<usize>,
    /// The choices of the run that met it first, before it: how a run gets to it.
    route: BTreeMap<String, usize>,
}

impl EnumState {
    /// The variant a run takes where nothing asks for another: the first traced one that
    /// does not recurse, else the first not yet known to fail or recurse, else the first.
    fn default_variant(&self, recursive: &BTreeSet<usize>) -> usize {
        let usable = |i: &usize| !self.avoid.contains(i) && !recursive.contains(i);
        (0..self.variants.len())
            .filter(usable)
            .find(|i| self.status.get(*i) == Some(&Status::Traced))
            .or_else(|| (0..self.variants.len()).find(usable))
            .or_else(|| (0..self.variants.len()).find(|i| !self.avoid.contains(i)))
            .unwrap_or(0)
    }
}

#[derive(Default)]
struct State {
    containers: BTreeMap<String, Container>,
    /// What each place (by path) was seen to hold, in any run.
    seen: BTreeMap<String, Shape>,
    /// The named containers the current run is inside.
    open: Vec<String>,
    /// The options, sequences and maps the current run is inside, by place.
    escapable: Vec<String>,
    /// Places that hand out `None` or an empty collection instead of descending, because
    /// descending recursed.
    escapes: BTreeSet<String>,
    /// Where the current run's recursion is to be cut: the innermost escapable place.
    cut_at: Option<String>,
    /// What is known of each enum met, by its key.
    enums: BTreeMap<String, EnumState>,
    /// The variant this run explores, taken where the run first meets its enum outside
    /// itself, and whether the run took it.
    exploring: Option<(String, usize)>,
    explored: bool,
    /// The variant each enum took where this run first met it outside itself: the route by
    /// which a run reaches an enum met for the first time.
    choices: BTreeMap<String, usize>,
    /// The enum variants this run is inside: the enum, the variant, how many places the
    /// run had read when it entered, and how many containers it was inside.
    frames: Vec<(String, usize, usize, usize)>,
    /// The innermost variant a failing run's error passed out of.
    failed_in: Option<(String, usize, usize)>,
    /// Variants of each enum that led back into a container the run was inside.
    recursive_variants: BTreeMap<String, BTreeSet<usize>>,
    /// Whether this run marked a variant recursive (the next run will avoid it).
    learned: bool,
    /// The leaves of the samples given: what a leaf that refuses is handed first.
    from_samples: Vec<Sample>,
    /// The key of each distinct type by serde name and visitor type: a generic struct with
    /// two parameters is two shapes.
    identities: BTreeMap<(String, &'static str), String>,
    /// Each place that searches a value it accepts, by its key (the innermost container's
    /// name and the path inside it).
    searches: BTreeMap<String, Search>,
    /// The searching places this run read, in order (a collection also when it ended): the
    /// last is blamed for a refusal.
    read: Vec<String>,
    /// The structs this run is inside, by key.
    struct_keys: Vec<String>,
    /// The place blamed last, for the error when nothing is accepted.
    last_blamed: Option<String>,
    /// Places whose refusals said nothing to learn from, with what they said.
    gaps: BTreeMap<String, String>,
}

impl State {
    fn begin_run(&mut self) {
        self.open.clear();
        self.escapable.clear();
        self.cut_at = None;
        self.learned = false;
        self.read.clear();
        self.struct_keys.clear();
        self.explored = false;
        self.choices.clear();
        self.frames.clear();
        self.failed_in = None;
    }

    /// Sets up the next run to take a variant not yet taken. False when every variant of
    /// every enum met has been.
    fn explore_next_variant(&mut self) -> bool {
        for (key, state) in &self.enums {
            if let Some(next) = state.status.iter().position(|s| *s == Status::Untried) {
                self.exploring = Some((key.clone(), next));
                return true;
            }
        }
        false
    }

    /// After a run: the variant explored is done when it was traced or refused for good, or
    /// when a run that went through (`changed` false) did not reach it.
    fn finish_exploring(&mut self, changed: bool) {
        let Some((key, v)) = self.exploring.clone() else {
            return;
        };
        let Some(status) = self.enums.get_mut(&key).and_then(|e| e.status.get_mut(v)) else {
            self.exploring = None;
            return;
        };
        if *status == Status::Untried {
            if self.explored || changed {
                return;
            }
            *status = Status::Unreached;
        }
        self.exploring = None;
    }

    /// The key of the type serde names `name` and reads with a visitor of type `visitor`.
    fn identify(&mut self, name: &'static str, visitor: &'static str) -> String {
        if let Some(key) = self.identities.get(&(name.to_string(), visitor)) {
            return key.clone();
        }
        let taken = |key: &str, ids: &BTreeMap<(String, &'static str), String>| {
            ids.values().any(|k| k == key)
        };
        let mut key = name.to_string();
        if taken(&key, &self.identities) {
            key = format!("{name}{}", generic_arguments(visitor));
            let mut n = 2;
            while taken(&key, &self.identities) {
                key = format!("{name}#{n}");
                n += 1;
            }
        }
        self.identities
            .insert((name.to_string(), visitor), key.clone());
        key
    }

    /// What the trace did not see: the variants it could not build, and the places that
    /// accepted every value tried.
    fn unseen(&self) -> Vec<Unseen> {
        let mut out = Vec::new();
        for (key, state) in &self.enums {
            for (name, status) in state.variants.iter().zip(&state.status) {
                let why = match status {
                    Status::Traced => continue,
                    Status::Refused(refusal) => format!(
                        "the type refused every value the tracer tried inside it (the last \
                         refusal: {refusal}); give a sample holding it (.sample(&value))"
                    ),
                    Status::Unreached => "no run of the trace got to it; give a sample \
                        holding it (.sample(&value))"
                        .to_string(),
                    Status::Untried => format!(
                        "the trace stopped ({MAX_RUNS} runs) before trying it; give a sample \
                         holding it (.sample(&value))"
                    ),
                };
                out.push(Unseen {
                    place: format!("{key}::{name}"),
                    kind: UnseenKind::Variant,
                    why,
                });
            }
        }
        for (key, search) in &self.searches {
            if search.kind != Searching::Any || !search.panicked.is_empty() {
                continue;
            }
            if !probes().iter().all(|p| search.accepted.contains(p)) {
                continue;
            }
            let place = if key.is_empty() { "the root" } else { key }.to_string();
            out.push(if search.buffered {
                Unseen {
                    place,
                    kind: UnseenKind::AcceptedAnything,
                    why: "read through serde's buffering (an untagged or internally tagged \
                        enum, or a flattened field), it accepted every kind of value tried: \
                        a catch-all variant (`deserialize_with` into `IgnoredAny`, a \
                        `Value`) took them, so its other variants were never asked for; give \
                        samples of what it really holds"
                        .into(),
                }
            } else {
                Unseen {
                    place,
                    kind: UnseenKind::AnyValue,
                    why: "a self-describing value: it accepts any document, and gets the \
                        generic bombs and claims in its place"
                        .into(),
                }
            });
        }
        out
    }

    /// The run panicked: the value the last searching place handed is kept.
    fn panicked(&mut self) {
        let Some(key) = self.read.last() else {
            return;
        };
        if let Some(search) = self.searches.get_mut(key) {
            let value = search.current.tree.clone();
            if search.sampling && !search.panicked.contains(&value) {
                search.panicked.push(value);
            }
        }
    }

    /// What the searching place `key` hands this run (created with `first`, then `then`).
    fn search_value(
        &mut self,
        key: &str,
        kind: Searching,
        first: impl FnOnce() -> (Sample, Vec<Sample>),
    ) -> Option<Sample> {
        let from_samples = &self.from_samples;
        let search = self.searches.entry(key.to_string()).or_insert_with(|| {
            let (first, mut then) = first();
            if kind == Searching::Leaf {
                // What valid documents hold in a place of this kind, before any guess.
                let known: Vec<Sample> = from_samples
                    .iter()
                    .filter(|s| s.kind() == first.kind() && **s != first)
                    .cloned()
                    .collect();
                then.splice(0..0, known);
            }
            Search::new(kind, first, then)
        });
        self.read.push(key.to_string());
        search.sampling.then(|| search.current.tree.clone())
    }

    /// A run went through: every place it read accepts what it was handed. True when a
    /// place searches on (for the other variants of what it accepts).
    fn accept_run(&mut self) -> bool {
        let mut more = false;
        let mut read = std::mem::take(&mut self.read);
        read.dedup();
        for key in &read {
            let Some(search) = self.searches.get_mut(key) else {
                continue;
            };
            if search.settled {
                continue;
            }
            let value = search.current.tree.clone();
            search.tried.insert(value.to_bytes());
            if !search.sampling {
                // A collection traced as a type: it needs no search.
                search.settled = true;
                continue;
            }
            if !search.accepted.contains(&value) {
                search.accepted.push(value);
            }
            // Other guesses at the value just found are not tried; other variants are, and
            // the value with each of its empty sequences holding one element (what that
            // element is, the refusals tell), so that attacks on an element reach one.
            let found = search.current.clone();
            search.stack.retain(|c| !c.superseded_by(&found));
            let explores = search.kind != Searching::Leaf;
            if explores {
                let filled: Vec<Candidate> = found
                    .tree
                    .paths()
                    .into_iter()
                    .filter(|p| matches!(found.tree.at(p), Some(Sample::Array(items)) if items.is_empty()))
                    .filter_map(|p| {
                        let mut c = found.clone();
                        *c.tree.at_mut(&p)? = Sample::Array(vec![Sample::Nil]);
                        let mut element = p.clone();
                        element.push(0);
                        c.recent.push(element);
                        c.names_variant = true;
                        Some(c)
                    })
                    .collect();
                search.push_refined(filled);
            }
            if explores && search.accepted.len() < MAX_ACCEPTED && search.next() {
                more = true;
            } else {
                search.settle();
            }
        }
        more
    }

    /// After a failed run: changes what the next run does so that it gets past the failure.
    /// False when nothing is left to change.
    fn recover(&mut self, error: &TraceFailure) -> bool {
        if error.0 == RECURSED {
            let escaped = match self.cut_at.take() {
                Some(place) => self.escapes.insert(place),
                None => false,
            };
            return escaped || self.learned;
        }
        // The last place read is blamed first; when it has nothing left to try, the one
        // before it. A failure inside an enum variant blames only what the variant read:
        // when that is exhausted, the variant is refused, not what holds it.
        let failed_in = self.failed_in.take();
        let mut read = std::mem::take(&mut self.read);
        if let Some((_, _, start)) = &failed_in {
            read.drain(..(*start).min(read.len()));
        }
        read.dedup();
        for key in read.iter().rev() {
            let Some(search) = self.searches.get_mut(key) else {
                continue;
            };
            self.last_blamed = Some(key.clone());
            if error
                .0
                .contains("did not match any variant of untagged enum")
            {
                self.gaps.insert(key.clone(), error.0.clone());
            }
            if search.kind == Searching::Leaf && error.0.starts_with("unknown variant ") {
                // A tag read as an identifier (an adjacently tagged enum read as a
                // sequence): the struct holding it is searched as a map, one variant each.
                if let Some(parent) = search.parent_struct.clone() {
                    if self.sample_struct(&parent, key, &error.0) {
                        return true;
                    }
                }
            }
            let Some(search) = self.searches.get_mut(key) else {
                continue;
            };
            if search.kind == Searching::Collection && !search.sampling {
                // Handed an empty one next, then what the refusal asks of it.
                search.sampling = true;
                search.current = Candidate::new(search.default.clone());
                search.stack.clear();
                let refined = refine(&search.current, &error.0);
                search.push_refined(refined);
                return true;
            }
            if search.blame(&error.0) {
                return true;
            }
        }
        if let Some((key, v, _)) = failed_in {
            if let Some(status) = self.enums.get_mut(&key).and_then(|e| e.status.get_mut(v)) {
                match status {
                    Status::Untried => *status = Status::Refused(error.0.clone()),
                    // Traced once, refused now: runs go another way from here on.
                    Status::Traced => {}
                    Status::Refused(_) | Status::Unreached => return false,
                }
                if let Some(state) = self.enums.get_mut(&key) {
                    return state.avoid.insert(v);
                }
            }
        }
        false
    }

    /// Makes the struct at `parent` search maps holding its tag field (`tag_key` names it)
    /// set to each variant the refusal names.
    fn sample_struct(&mut self, parent: &str, tag_key: &str, message: &str) -> bool {
        let Some(field) = tag_key.rsplit('.').next() else {
            return false;
        };
        let names = crate::search::refine(
            &Candidate::new(Sample::Map(vec![(
                Sample::Str(field.to_string()),
                Sample::Str(String::new()),
            )])),
            message,
        );
        let Some(search) = self.searches.get_mut(parent) else {
            return false;
        };
        if search.sampling || names.is_empty() {
            return false;
        }
        search.sampling = true;
        search.stack.clear();
        search.push_refined(names);
        search.next()
    }

    fn record_container(&mut self, name: &str, container: Container) {
        match (self.containers.get_mut(name), container) {
            (Some(Container::Enum(known)), Container::Enum(seen)) => {
                for ((_, known), (_, seen)) in known.iter_mut().zip(seen) {
                    if known.is_none() {
                        *known = seen;
                    }
                }
            }
            (Some(_), _) => {}
            (None, container) => {
                self.containers.insert(name.to_string(), container);
            }
        }
    }
}

/// Puts what the searches found into the shapes: a place that accepts only values other
/// than its kind's smallest, or that the tracer could not see into, holds the samples it
/// accepted ([`Shape::Sampled`]); one that accepts every kind of value stays
/// [`Shape::Opaque`].
fn apply_samples(traced: &mut Traced, searches: &BTreeMap<String, Search>) {
    let found = |key: &str| -> Option<Shape> {
        let search = searches.get(key)?;
        if !search.sampling || search.accepted.is_empty() {
            return None;
        }
        // What made it panic is kept beside what it accepted.
        let with_panics = || {
            let mut all = search.accepted.clone();
            all.extend(search.panicked.iter().cloned());
            Shape::Sampled(all)
        };
        if !search.panicked.is_empty() {
            return Some(with_panics());
        }
        match search.kind {
            Searching::Leaf if search.accepted.first() == Some(&search.default) => None,
            Searching::Any if probes().iter().all(|p| search.accepted.contains(p)) => None,
            _ => Some(Shape::Sampled(search.accepted.clone())),
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

/// The tracing deserializer's position: the run's state and where it reads, as a path from
/// the root (`.params[]`) and as a key: the innermost named container and the path inside it
/// (`Param::List[]`), which names the same place wherever the container appears.
struct Tracer<'s> {
    state: &'s mut State,
    place: String,
    scope: String,
    rel: String,
}

impl Tracer<'_> {
    fn at(&mut self, suffix: &str) -> Tracer<'_> {
        Tracer {
            state: self.state,
            place: format!("{}{suffix}", self.place),
            scope: self.scope.clone(),
            rel: format!("{}{suffix}", self.rel),
        }
    }

    /// The place's key: its container's name and the path inside it.
    fn key(&self) -> String {
        format!("{}{}", self.scope, self.rel)
    }

    fn saw(&mut self, shape: &Shape) {
        self.state.seen.insert(self.place.clone(), shape.clone());
    }

    /// What a run saw at this place followed by `suffix`.
    fn seen_at(&self, suffix: &str) -> Shape {
        self.state
            .seen
            .get(&format!("{}{suffix}", self.place))
            .cloned()
            .unwrap_or(Shape::Opaque)
    }

    /// The key of the type serde names `name`, read by a visitor of type `V`. A generic
    /// type recursing into itself with ever larger parameters (`T<Box<T<..>>>`) stops the
    /// run as a recursion.
    fn identify<V>(&mut self, name: &'static str) -> Result<String, TraceFailure> {
        let key = self.state.identify(name, std::any::type_name::<V>());
        let same_name = self
            .state
            .open
            .iter()
            .filter(|open| open.split(['<', '#']).next() == Some(name))
            .count();
        if same_name > MAX_SAME_NAME_OPEN {
            return Err(self.recursed());
        }
        Ok(key)
    }

    /// Whether this place hands out `None` or an empty collection (it recursed before).
    fn escapes(&self) -> bool {
        self.state.escapes.contains(&self.place)
    }

    /// The error that stops a run recursing here: the innermost escapable place is where
    /// the next run cuts it.
    fn recursed(&mut self) -> TraceFailure {
        if self.state.cut_at.is_none() {
            self.state.cut_at = self.state.escapable.last().cloned();
        }
        TraceFailure(RECURSED.into())
    }

    /// A named struct's content, read with `read` inside it; refused when the run is already
    /// inside a container of that name.
    fn within<T>(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut Self) -> Result<(T, Container), TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.saw(&Shape::Named(name.to_string()));
        if let Some(first) = self.state.open.iter().position(|n| n == name) {
            // Back inside itself. Through the variant this run explores, once more: the
            // variant's content is read, and the enum inside takes a variant that ends.
            let again = self.state.open.iter().filter(|n| *n == name).count() == 1
                && self.state.frames.iter().any(|(key, v, _, open_at)| {
                    *open_at > first && self.state.exploring.as_ref() == Some(&(key.clone(), *v))
                });
            if !again {
                return Err(self.recursed());
            }
        }
        self.state.open.push(name.to_string());
        let outer = (
            std::mem::replace(&mut self.scope, name.to_string()),
            std::mem::take(&mut self.rel),
        );
        let result = read(self);
        (self.scope, self.rel) = outer;
        self.state.open.pop();
        let (value, container) = result?;
        self.state.record_container(name, container);
        Ok(value)
    }

    /// Reads through an option, sequence or map at this place (one that can escape).
    fn through<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.state.escapable.push(self.place.clone());
        let result = read(self);
        self.state.escapable.pop();
        result
    }
}

/// Reads `seed` at the tracer's place followed by `suffix`; the value and the shape it took.
fn read_at<S: DeserializeSeed<'static>>(
    tracer: &mut Tracer<'_>,
    suffix: &str,
    seed: S,
) -> Result<(S::Value, Shape), TraceFailure> {
    let mut shape = ShapeOf::default();
    let value = seed.deserialize(Recording {
        tracer: tracer.at(suffix),
        shape: &mut shape,
    })?;
    Ok((value, shape.0.unwrap_or(Shape::Opaque)))
}

/// Hands a visitor one element for each name, each read by a tracer at the place followed
/// by the name, and collects the shape of each.
struct Fields<'a, 's> {
    tracer: &'a mut Tracer<'s>,
    names: Vec<String>,
    shapes: Vec<Shape>,
    /// A searching sequence's key, read again when the visitor finds its end.
    ends: Option<String>,
}

impl SeqAccess<'static> for Fields<'_, '_> {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        let Some(name) = self.names.get(self.shapes.len()).cloned() else {
            if let Some(key) = &self.ends {
                self.tracer.state.read.push(key.clone());
            }
            return Ok(None);
        };
        let (value, shape) = read_at(self.tracer, &name, seed)?;
        self.shapes.push(shape);
        Ok(Some(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.names.len().saturating_sub(self.shapes.len()))
    }
}

/// Hands `visitor` one element for each of `names` (read at the place followed by the name);
/// the value and the shape of each element.
fn read_fields<V: Visitor<'static>>(
    tracer: &mut Tracer<'_>,
    names: Vec<String>,
    visitor: V,
) -> Result<(V::Value, Vec<Shape>), TraceFailure> {
    let mut seq = Fields {
        tracer,
        names,
        shapes: Vec::new(),
        ends: None,
    };
    let value = visitor.visit_seq(&mut seq)?;
    Ok((value, seq.shapes))
}

/// Names of the positional fields `.0` to `.{len - 1}`, and of named ones `.name`.
fn positions(len: usize) -> Vec<String> {
    (0..len).map(|i| format!(".{i}")).collect()
}

fn named(fields: &[&str]) -> Vec<String> {
    fields.iter().map(|f| format!(".{f}")).collect()
}

/// A map of one entry, each side read by a tracer (`{key}` and `{}`).
struct Entry<'a, 's> {
    tracer: &'a mut Tracer<'s>,
    key: Option<Shape>,
    value: Option<Shape>,
    /// The map's key, read again when the visitor finds its end.
    ends: String,
}

impl MapAccess<'static> for Entry<'_, '_> {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        if self.key.is_some() {
            self.tracer.state.read.push(self.ends.clone());
            return Ok(None);
        }
        let (key, shape) = read_at(self.tracer, "{key}", seed)?;
        self.key = Some(shape);
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shape) = read_at(self.tracer, "{}", seed)?;
        self.value = Some(shape);
        Ok(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.key.is_none()))
    }
}

/// An empty sequence or map.
struct Empty;

impl SeqAccess<'static> for Empty {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        _seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

impl MapAccess<'static> for Empty {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        _seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
        &mut self,
        _seed: V,
    ) -> Result<V::Value, TraceFailure> {
        Err(TraceFailure("a value asked of an empty map".into()))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

/// The variant a run takes of an enum, and the content read for it.
struct Choice<'a, 's> {
    tracer: Tracer<'s>,
    index: usize,
    content: &'a mut Option<Variant>,
}

impl<'a, 's> EnumAccess<'static> for Choice<'a, 's> {
    type Error = TraceFailure;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'static>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), TraceFailure> {
        let index = u32::try_from(self.index).unwrap_or(u32::MAX);
        let variant = seed.deserialize(index.into_deserializer())?;
        Ok((variant, self))
    }
}

impl VariantAccess<'static> for Choice<'_, '_> {
    type Error = TraceFailure;

    fn unit_variant(self) -> Result<(), TraceFailure> {
        *self.content = Some(Variant::Unit);
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'static>>(
        mut self,
        seed: S,
    ) -> Result<S::Value, TraceFailure> {
        // Named as the writer names it: the variant is the place.
        let (value, shape) = read_at(&mut self.tracer, "", seed)?;
        *self.content = Some(Variant::Newtype(shape));
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'static>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        *self.content = Some(Variant::Tuple(shapes));
        Ok(value)
    }

    fn struct_variant<V: Visitor<'static>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, named(fields), visitor)?;
        let named = fields.iter().map(|f| f.to_string()).zip(shapes).collect();
        *self.content = Some(Variant::Struct(named));
        Ok(value)
    }
}

/// The shape one read recorded.
#[derive(Default)]
struct ShapeOf(Option<Shape>);

/// The tracing deserializer: a tracer at a place, handing back the shape of what it read.
struct Recording<'a, 's> {
    tracer: Tracer<'s>,
    shape: &'a mut ShapeOf,
}

impl Recording<'_, '_> {
    fn found(&mut self, shape: Shape) {
        self.tracer.saw(&shape);
        self.shape.0 = Some(shape);
    }
}

impl Recording<'_, '_> {
    /// A leaf: the value its search hands this run, the smallest of its kind first.
    fn leaf<V: Visitor<'static>>(
        mut self,
        shape: Shape,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(shape.clone());
        let key = self.tracer.key();
        let direct_field = self.tracer.rel.matches(['.', '[', '{', '?', ':']).count() == 1
            && self.tracer.rel.starts_with('.');
        let parent = self.tracer.state.struct_keys.last().cloned();
        let state = &mut *self.tracer.state;
        let value = state
            .search_value(&key, Searching::Leaf, || leaf_values(&shape))
            .unwrap_or(Sample::Nil);
        if let Some(search) = state.searches.get_mut(&key) {
            if direct_field && search.parent_struct.is_none() {
                search.parent_struct = parent;
            }
        }
        de::Deserializer::deserialize_any(SampleDeserializer::new(&value), visitor)
    }

    /// What a searching collection (sequence, map, struct) at this place hands this run: a
    /// sample once a refusal has blamed it, `None` while it is traced as a type.
    fn collection_sample(&mut self, empty: Sample) -> Option<Sample> {
        let key = self.tracer.key();
        self.tracer
            .state
            .search_value(&key, Searching::Collection, || (empty, Vec::new()))
    }
}

/// The values a leaf of `shape` is handed: its smallest, then others of its kind.
fn leaf_values(shape: &Shape) -> (Sample, Vec<Sample>) {
    let first = match shape {
        Shape::Unit | Shape::Opaque => Sample::Nil,
        Shape::Bool => Sample::Bool(false),
        Shape::Int { .. } => Sample::Int(0),
        Shape::Float(_) => Sample::F64(0.0),
        Shape::Char => Sample::Str("a".into()),
        Shape::Str => Sample::Str(String::new()),
        Shape::Bytes => Sample::Bin(Vec::new()),
        _ => Sample::Nil,
    };
    let mut then = alternatives(first.kind());
    if let Shape::Int { signed: false, .. } = shape {
        then.retain(|s| !matches!(s, Sample::Int(n) if *n < 0));
    }
    if *shape == Shape::Char {
        then = vec![Sample::Str("0".into())];
    }
    (first, then)
}

macro_rules! leaf {
    ($method:ident, $shape:expr) => {
        fn $method<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, TraceFailure> {
            self.leaf($shape, visitor)
        }
    };
}

impl de::Deserializer<'static> for Recording<'_, '_> {
    type Error = TraceFailure;

    fn is_human_readable(&self) -> bool {
        false
    }

    leaf!(deserialize_bool, Shape::Bool);
    leaf!(
        deserialize_i8,
        Shape::Int {
            signed: true,
            bits: 8
        }
    );
    leaf!(
        deserialize_i16,
        Shape::Int {
            signed: true,
            bits: 16
        }
    );
    leaf!(
        deserialize_i32,
        Shape::Int {
            signed: true,
            bits: 32
        }
    );
    leaf!(
        deserialize_i64,
        Shape::Int {
            signed: true,
            bits: 64
        }
    );
    leaf!(
        deserialize_i128,
        Shape::Int {
            signed: true,
            bits: 128
        }
    );
    leaf!(
        deserialize_u8,
        Shape::Int {
            signed: false,
            bits: 8
        }
    );
    leaf!(
        deserialize_u16,
        Shape::Int {
            signed: false,
            bits: 16
        }
    );
    leaf!(
        deserialize_u32,
        Shape::Int {
            signed: false,
            bits: 32
        }
    );
    leaf!(
        deserialize_u64,
        Shape::Int {
            signed: false,
            bits: 64
        }
    );
    leaf!(
        deserialize_u128,
        Shape::Int {
            signed: false,
            bits: 128
        }
    );
    leaf!(deserialize_f32, Shape::Float(32));
    leaf!(deserialize_f64, Shape::Float(64));
    leaf!(deserialize_char, Shape::Char);
    leaf!(deserialize_str, Shape::Str);
    leaf!(deserialize_string, Shape::Str);
    leaf!(deserialize_bytes, Shape::Bytes);
    leaf!(deserialize_byte_buf, Shape::Bytes);
    leaf!(deserialize_unit, Shape::Unit);
    leaf!(deserialize_identifier, Shape::Str);
    fn deserialize_ignored_any<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Opaque);
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Opaque);
        let key = self.tracer.key();
        let state = &mut *self.tracer.state;
        let value = state
            .search_value(&key, Searching::Any, || {
                let mut all = probes();
                let first = all.remove(0);
                (first, all)
            })
            .unwrap_or(Sample::Nil);
        if let Some(search) = state.searches.get_mut(&key) {
            // serde's private buffering reads an untagged or internally tagged enum, or a
            // flattened field's entries, into its `Content` first.
            search.buffered |= std::any::type_name::<V>().contains("Content");
        }
        de::Deserializer::deserialize_any(SampleDeserializer::new(&value), visitor)
    }

    fn deserialize_option<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let inner = self.tracer.seen_at("?");
            self.found(Shape::Option(Box::new(inner)));
            return visitor.visit_none();
        }
        let mut inner = ShapeOf::default();
        let value = self.tracer.through(|tracer| {
            visitor.visit_some(Recording {
                tracer: tracer.at("?"),
                shape: &mut inner,
            })
        })?;
        self.found(Shape::Option(Box::new(inner.0.unwrap_or(Shape::Opaque))));
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let inner = self.tracer.seen_at("[]");
            self.found(Shape::Seq(Box::new(inner)));
            return visitor.visit_seq(Empty);
        }
        if let Some(sample) = self.collection_sample(Sample::Array(Vec::new())) {
            self.found(Shape::Seq(Box::new(Shape::Opaque)));
            return de::Deserializer::deserialize_any(SampleDeserializer::new(&sample), visitor);
        }
        let key = self.tracer.key();
        let (value, mut shapes) = self.tracer.through(|tracer| {
            let mut seq = Fields {
                tracer,
                names: vec!["[]".into()],
                shapes: Vec::new(),
                ends: Some(key),
            };
            let value = visitor.visit_seq(&mut seq)?;
            Ok((value, seq.shapes))
        })?;
        self.found(Shape::Seq(Box::new(shapes.pop().unwrap_or(Shape::Opaque))));
        Ok(value)
    }

    fn deserialize_map<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let key = self.tracer.seen_at("{key}");
            let value = self.tracer.seen_at("{}");
            self.found(Shape::Map {
                key: Box::new(key),
                value: Box::new(value),
            });
            return visitor.visit_map(Empty);
        }
        if let Some(sample) = self.collection_sample(Sample::Map(Vec::new())) {
            self.found(Shape::Map {
                key: Box::new(Shape::Opaque),
                value: Box::new(Shape::Opaque),
            });
            return de::Deserializer::deserialize_any(SampleDeserializer::new(&sample), visitor);
        }
        let ends = self.tracer.key();
        let (value, key_shape, value_shape) = self.tracer.through(|tracer| {
            let mut entry = Entry {
                tracer,
                key: None,
                value: None,
                ends,
            };
            let value = visitor.visit_map(&mut entry)?;
            Ok((value, entry.key, entry.value))
        })?;
        self.found(Shape::Map {
            key: Box::new(key_shape.unwrap_or(Shape::Opaque)),
            value: Box::new(value_shape.unwrap_or(Shape::Opaque)),
        });
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'static>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        self.found(Shape::Tuple(shapes));
        Ok(value)
    }

    fn deserialize_unit_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |_| {
            Ok((visitor.visit_unit()?, Container::UnitStruct))
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |tracer| {
            let mut inner = ShapeOf::default();
            let value = visitor.visit_newtype_struct(Recording {
                tracer: tracer.at(".0"),
                shape: &mut inner,
            })?;
            Ok((value, Container::Newtype(inner.0.unwrap_or(Shape::Opaque))))
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |tracer| {
            let (value, shapes) = read_fields(tracer, positions(len), visitor)?;
            Ok((value, Container::TupleStruct(shapes)))
        })
    }

    fn deserialize_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.shape.0 = Some(Shape::Named(name.clone()));
        if let Some(sample) = self.collection_sample(Sample::Map(Vec::new())) {
            // An adjacently tagged enum, searched as a map once its tag named its variants.
            return de::Deserializer::deserialize_any(SampleDeserializer::new(&sample), visitor);
        }
        let key = self.tracer.key();
        self.tracer.state.struct_keys.push(key);
        let result = self.tracer.within(&name, |tracer| {
            let (value, shapes) = read_fields(tracer, named(fields), visitor)?;
            let named = fields.iter().map(|f| f.to_string()).zip(shapes).collect();
            Ok((value, Container::Struct(named)))
        });
        self.tracer.state.struct_keys.pop();
        result
    }

    fn deserialize_enum<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let key = self.tracer.identify::<V>(name)?;
        self.found(Shape::Named(key.clone()));
        if variants.is_empty() {
            return Err(TraceFailure(format!("enum {name} has no variants")));
        }
        let place = self.tracer.place.clone();
        let depth_inside = self.tracer.state.open.iter().filter(|n| **n == key).count();
        if depth_inside >= 2 {
            // Inside itself twice: the variant taken the level up recursed too.
            return Err(self.tracer.recursed());
        }
        let state = &mut *self.tracer.state;
        if !state.enums.contains_key(&key) {
            let route = state.choices.clone();
            state.enums.insert(
                key.clone(),
                EnumState {
                    variants: variants.to_vec(),
                    status: vec![Status::Untried; variants.len()],
                    avoid: BTreeSet::new(),
                    route,
                },
            );
        }
        let recursive = state
            .recursive_variants
            .get(&key)
            .cloned()
            .unwrap_or_default();
        let chosen = match (&state.enums[&key], &state.exploring) {
            // Recursing: a variant known to end, one not known to recurse if none is.
            (known, _) if depth_inside == 1 => known.default_variant(&recursive),
            (known, Some((explored, v)))
                if *explored == key
                    && !state.explored
                    && known.status.get(*v) == Some(&Status::Untried) =>
            {
                state.explored = true;
                *v
            }
            (known, exploring) => {
                // On the way to the enum explored: the choices of the run that first met it.
                let routed = exploring
                    .as_ref()
                    .filter(|_| !state.choices.contains_key(&key))
                    .and_then(|(explored, _)| state.enums.get(explored))
                    .and_then(|explored| explored.route.get(&key))
                    .copied()
                    .filter(|v| !known.avoid.contains(v) && *v < variants.len());
                routed.unwrap_or_else(|| known.default_variant(&recursive))
            }
        };
        if depth_inside == 0 {
            state.choices.entry(key.clone()).or_insert(chosen);
        }
        let start = state.read.len();
        state
            .frames
            .push((key.clone(), chosen, start, state.open.len()));
        state.open.push(key.clone());
        let mut content = None;
        let result = visitor.visit_enum(Choice {
            tracer: Tracer {
                state: &mut *self.tracer.state,
                place: format!("{place}::{}", variants[chosen]),
                scope: key.clone(),
                rel: format!("::{}", variants[chosen]),
            },
            index: chosen,
            content: &mut content,
        });
        let state = &mut *self.tracer.state;
        state.open.pop();
        state.frames.pop();
        match &result {
            Err(e) if e.0 == RECURSED => {
                if state
                    .recursive_variants
                    .entry(key.clone())
                    .or_default()
                    .insert(chosen)
                {
                    state.learned = true;
                }
            }
            Err(_) => {
                if state.failed_in.is_none() {
                    state.failed_in = Some((key.clone(), chosen, start));
                }
            }
            Ok(_) => {
                if let Some(status) = state
                    .enums
                    .get_mut(&key)
                    .and_then(|e| e.status.get_mut(chosen))
                {
                    if *status == Status::Untried {
                        *status = Status::Traced;
                    }
                }
            }
        }
        let value = result?;
        let mut all: Vec<(String, Option<Variant>)> =
            variants.iter().map(|v| (v.to_string(), None)).collect();
        if let Some(slot) = all.get_mut(chosen) {
            slot.1 = content;
        }
        state.record_container(&key, Container::Enum(all));
        Ok(value)
    }
}
