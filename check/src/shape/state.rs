//! What a trace has learned of a type and what it tries next: the searches for values each
//! place accepts, what is known of each enum's variants, and how a failed run is recovered.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de;

use super::{Container, Shape, Unseen, UnseenKind, MAX_RUNS};
use crate::sample::Sample;
use crate::search::{is_key, probes, refine, Branch, Candidate, UNKNOWN_NAME};

/// An error of the tracer, or of the type's `Deserialize` during a trace.
#[derive(Debug)]
pub(super) struct TraceFailure(pub(super) String);

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
pub(super) const RECURSED: &str = "hardpack-check: recursed";

/// How many containers of one serde name (each a different instance of a generic type) a
/// run may be inside before it counts as recursing.
pub(super) const MAX_SAME_NAME_OPEN: usize = 16;

/// The generic arguments at the end of a visitor's type name, each path cut to its last
/// segment: `<Inner>` for `..::deserialize::__Visitor<my_crate::Inner>`; empty when it has
/// none.
pub(super) fn generic_arguments(visitor: &str) -> String {
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
pub(super) const MAX_TRIES: usize = 400;
/// How many accepted values in a row that name nothing new (no tag or key the others did
/// not) a place that searches goes on after. One that names something new starts the count
/// again: a search deep in nested variants finds each level's names in turn, and each of
/// its values also has twins (its structs as sequences, its unit variants as maps).
pub(super) const MAX_REPEATS: usize = 12;

/// What a place that searches for a value it accepts is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Searching {
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
pub(super) struct Search {
    pub(super) kind: Searching,
    /// Whether it hands samples (always, but for a collection still traced as a type).
    pub(super) sampling: bool,
    /// What it hands this run.
    pub(super) current: Candidate,
    /// What it tries next, the next last.
    pub(super) stack: Vec<Candidate>,
    /// How many refinements it made (each numbers its candidates' lineage).
    pub(super) refinements: u32,
    /// What it has tried, encoded.
    pub(super) tried: BTreeSet<Vec<u8>>,
    pub(super) accepted: Vec<Sample>,
    /// Accepted values that are only another form of values accepted before (a struct as
    /// a sequence, holding no new word): no samples of their own.
    pub(super) reshapes: Vec<Sample>,
    /// The first value it handed (a leaf's smallest value of its kind).
    pub(super) default: Sample,
    pub(super) tries: usize,
    /// Done: it hands its first accepted value from now on.
    pub(super) settled: bool,
    /// For a tag read as an identifier inside a struct: the struct's place, which takes
    /// over the search once the refusal names the variants.
    pub(super) parent_struct: Option<String>,
    /// Values on which the type's Deserialize panicked: written as payloads, they show it.
    pub(super) panicked: Vec<Sample>,
    /// For a place read with `deserialize_any`: whether serde's own buffering read it (an
    /// untagged or internally tagged enum, a flattened field), not a type's own visitor.
    pub(super) buffered: bool,
    /// Accepted values since the last that named a word the earlier ones did not
    /// ([`MAX_REPEATS`]).
    pub(super) repeats: usize,
    /// The enums the value handed this run was read as.
    pub(super) enums_read: Vec<crate::sample::EnumRead>,
    /// For each variant an accepted value named by its tag: the enums read inside it (by
    /// their variant lists), each with its variants and those an accepted value took.
    pub(super) inside: BTreeMap<String, BTreeMap<EnumAt, EnumInside>>,
    /// The structs (by the keys of the map that held them) already handed as sequences.
    pub(super) as_sequence: BTreeSet<Vec<String>>,
    /// The values found with something empty in them, handed again with it holding one.
    pub(super) fills: Vec<Fill>,
    /// Whether the nils of values naming a tagged variant were handed values (as fills).
    pub(super) filled_nils: bool,
    /// Accepted values that are a sample's, as given: the sample's own payloads attack
    /// them already.
    pub(super) given: Vec<Sample>,
    /// The types (`struct Node`) a probe found inside an accepted value, or that a
    /// refusal named and a value coming from the refused one then had accepted.
    pub(super) built_types: BTreeSet<String>,
    /// The types refusals named, with the lineage of the value refused.
    pub(super) building: Vec<Building>,
    /// A value of each type built ([`Search::built_types`]), as an accepted value held it:
    /// handed where that type is refused again, as it is, not built anew.
    pub(super) built_values: BTreeMap<String, Sample>,
}

/// A type a refusal named (`struct Node`), not yet built: built when a value coming from
/// the refused one is accepted.
pub(super) struct Building {
    /// The refused value's lineage.
    lineage: Vec<crate::search::Branch>,
    expected: String,
    /// Where each candidate refined from the refused value changed it (by its index): the
    /// node of the type, in the value accepted.
    at: Vec<Option<Vec<Step>>>,
}

/// A value naming tagged variants, found with an empty collection or a nil (an `Option`
/// left `None`) in it, handed again with one element or value there: until a value that
/// comes from it is accepted, what the collection or option holds was never built.
pub(super) struct Fill {
    /// The candidate's lineage: an accepted value that comes from it starts with it.
    lineage: Vec<crate::search::Branch>,
    /// The candidate, encoded: the same value filled from elsewhere is one fill.
    tree: Vec<u8>,
    /// The variants it names.
    names: Vec<String>,
    /// Where it was filled, and whether it was a nil there (else an empty collection).
    at: Option<Vec<Step>>,
    nil: bool,
    /// The type its refusal said the filled node holds (`struct Node`): built where that
    /// type was built (a recursive type's fill inside itself is its own twin).
    holds: Option<String>,
    resolved: bool,
}

impl Fill {
    /// Whether `value`, accepted, holds something where this fill was made: a value of
    /// the same variants with the collection not empty there, or the nil a value.
    fn filled_by(&self, value: &Sample, names: &[&str]) -> bool {
        let Some(at) = &self.at else {
            return false;
        };
        self.names.iter().all(|n| names.contains(&n.as_str()))
            && match follow(value, at) {
                // A collection holding something fills a nil too (an `Option` of a newtype
                // of a tuple holds a sequence); an empty one fills nothing.
                Some(Sample::Array(items)) => !items.is_empty(),
                Some(Sample::Map(entries)) => !entries.is_empty(),
                Some(Sample::Nil) | None => false,
                Some(_) => self.nil,
            }
    }
}

/// An enum inside a tagged variant's content: its variants, and where a refusal showed it
/// (none for an enum read from the value handed, whose choice is logged).
pub(super) type EnumAt = (Vec<String>, Option<Vec<Step>>);

/// An enum read inside a tagged variant's content: its variants, and those taken.
#[derive(Clone, Debug, Default)]
pub(super) struct EnumInside {
    pub(super) variants: Vec<String>,
    pub(super) taken: BTreeSet<String>,
}

/// A step from a value to a node inside it: a map's entry by its key, or a sequence's item.
/// A map's entries are followed by key, not by position: a value found later may hold more
/// entries before it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Step {
    Key(String),
    Item(usize),
}

/// The steps to the node at `path` (which is a map's key, or under one, only where the
/// path ends at that key).
fn steps_to(tree: &Sample, path: &[usize]) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut node = tree;
    for (i, at) in path.iter().enumerate() {
        match node {
            Sample::Array(items) => {
                steps.push(Step::Item(*at));
                node = items.get(*at)?;
            }
            Sample::Map(entries) => {
                let (key, value) = entries.get(at / 2)?;
                if at % 2 == 0 {
                    // The refused word is a key: the enum is the map of one entry that
                    // holds it (a variant with content).
                    return (i + 1 == path.len()).then_some(steps);
                }
                let Sample::Str(key) = key else {
                    return None;
                };
                steps.push(Step::Key(key.clone()));
                node = value;
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// The node `steps` lead to in `tree`.
fn follow<'a>(tree: &'a Sample, steps: &[Step]) -> Option<&'a Sample> {
    let mut node = tree;
    for step in steps {
        node = match (node, step) {
            (Sample::Array(items), Step::Item(i)) => items.get(*i)?,
            (Sample::Map(entries), Step::Key(k)) => {
                &entries
                    .iter()
                    .find(|(key, _)| matches!(key, Sample::Str(s) if s == k))?
                    .1
            }
            _ => return None,
        };
    }
    Some(node)
}

impl EnumInside {
    /// Takes the variant `value` names where the enum's refusal was (`at`): a str (a unit
    /// variant, or a tag) or a map keyed by the variant. Inside serde's buffering the enum is
    /// read from the buffer, not from the value handed, so that is all that shows its choice.
    fn take_named_at(&mut self, value: &Sample, at: &[Step]) {
        let named = match follow(value, at) {
            Some(Sample::Str(s)) => s,
            Some(Sample::Map(entries)) => match entries.first() {
                Some((Sample::Str(k), _)) => k,
                _ => return,
            },
            _ => return,
        };
        if self.variants.contains(named) {
            self.taken.insert(named.clone());
        }
    }
}

impl Search {
    pub(super) fn new(kind: Searching, first: Sample, then: Vec<Sample>) -> Self {
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
            reshapes: Vec::new(),
            default: first,
            tries: 1,
            settled: false,
            parent_struct: None,
            panicked: Vec::new(),
            buffered: false,
            repeats: 0,
            enums_read: Vec::new(),
            inside: BTreeMap::new(),
            as_sequence: BTreeSet::new(),
            fills: Vec::new(),
            filled_nils: false,
            built_types: BTreeSet::new(),
            building: Vec::new(),
            built_values: BTreeMap::new(),
            given: Vec::new(),
        }
    }

    /// The next untried candidate, if any is left within the budget. Past the budget, the
    /// samples' own values are still tried: they are few, and a user gave them to close
    /// what the search could not build.
    pub(super) fn next(&mut self) -> bool {
        while let Some(next) = self.stack.pop() {
            if self.tries >= MAX_TRIES && !next.from_sample {
                continue;
            }
            if self.tried.insert(next.tree.to_bytes()) {
                self.current = next;
                self.tries += 1;
                return true;
            }
            // Refined back into a value already accepted (a nil that is a unit, handed a
            // number): what it comes from was accepted.
            if self.accepted.contains(&next.tree) || self.reshapes.contains(&next.tree) {
                self.resolve_fills(&next.lineage, &next.tree);
            }
        }
        false
    }

    /// `value`, coming from `lineage`, was accepted: the fills it comes from are resolved,
    /// and the types refused on its way are built (and their values kept).
    pub(super) fn resolve_fills(&mut self, lineage: &[crate::search::Branch], value: &Sample) {
        for fill in &mut self.fills {
            if !fill.resolved && lineage.starts_with(&fill.lineage) {
                fill.resolved = true;
            }
        }
        let built = &mut self.built_types;
        let values = &mut self.built_values;
        self.building.retain(|building| {
            let on_its_way = lineage.starts_with(&building.lineage);
            if on_its_way {
                built.insert(building.expected.clone());
                let node = lineage
                    .get(building.lineage.len())
                    .and_then(|branch| building.at.get(branch.index as usize)?.as_deref())
                    .and_then(|at| follow(value, at));
                if let Some(node) = node {
                    values
                        .entry(building.expected.clone())
                        .or_insert_with(|| node.clone());
                }
            }
            !on_its_way
        });
    }

    /// Whether a fill of a value naming `variant` was never accepted, nor its type built.
    fn unresolved_fill(&self, variant: &str) -> bool {
        let resolved: BTreeSet<&[u8]> = self
            .fills
            .iter()
            .filter(|f| f.resolved)
            .map(|f| f.tree.as_slice())
            .collect();
        let built: BTreeSet<&str> = self
            .fills
            .iter()
            .filter(|f| f.resolved)
            .filter_map(|f| f.holds.as_deref())
            .chain(self.built_types.iter().map(String::as_str))
            .collect();
        self.fills.iter().any(|f| {
            f.names.iter().any(|n| n == variant)
                && !resolved.contains(f.tree.as_slice())
                && !f.holds.as_deref().is_some_and(|t| built.contains(t))
        })
    }

    /// Puts what a refinement made on the stack, the first to be tried next.
    pub(super) fn push_refined(&mut self, refined: Vec<Candidate>) {
        self.refinements += 1;
        let refinement = self.refinements;
        let mut stalled = Vec::new();
        for (i, mut c) in refined.into_iter().enumerate().rev() {
            c.lineage.push(Branch {
                refinement,
                index: i as u32,
                variant: c.names_variant,
            });
            c.names_variant = false;
            c.from_sample = false;
            if c.stalled {
                stalled.push(c);
            } else {
                self.stack.push(c);
            }
        }
        // The bottom of the stack: tried when nothing else is left.
        self.stack.splice(0..0, stalled.into_iter().rev());
    }

    /// The values of the samples given, tried next (the first first).
    pub(super) fn hand_samples(&mut self, values: &[Sample]) {
        for (i, value) in values.iter().enumerate().rev() {
            let mut c = Candidate::new(value.clone());
            c.lineage.push(Branch {
                refinement: 0,
                index: u32::MAX - i as u32,
                variant: true,
            });
            c.from_sample = true;
            c.sampled = true;
            self.stack.push(c);
        }
        // The plain value of each kind still to try goes first: whether every kind is taken
        // (by a catch-all) is what says the place is opaque, and a catch-all takes each
        // sample's value too, which would spend the tries before them.
        let kinds = probes();
        let (plain, rest): (Vec<Candidate>, Vec<Candidate>) = std::mem::take(&mut self.stack)
            .into_iter()
            .partition(|c| !c.from_sample && kinds.contains(&c.tree));
        self.stack = rest;
        self.stack.extend(plain);
    }

    /// Back to what it is known to accept (or its first value), for good.
    pub(super) fn settle(&mut self) {
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
    pub(super) fn blame(&mut self, message: &str) -> bool {
        if self.settled {
            return false;
        }
        self.tried.insert(self.current.tree.to_bytes());
        // A node refused as a named type: the type is built where a probe found it or a
        // fill of it was accepted. Not built again here: inside serde's buffering a
        // recursive type would be built into itself until the tries run out. Where a value
        // of it is known, that value is handed there instead.
        let expected = crate::search::expected_type(message);
        let mut built_already = false;
        if let Some(expected) = expected {
            if self.current.probe {
                self.built_types.insert(expected.to_string());
            }
            let tree = self.current.tree.to_bytes();
            for fill in self.fills.iter_mut().filter(|f| f.tree == tree) {
                fill.holds.get_or_insert_with(|| expected.to_string());
            }
            built_already = self.built_types.contains(expected)
                || self
                    .fills
                    .iter()
                    .any(|f| f.resolved && f.holds.as_deref() == Some(expected));
        }
        // The value's own tag (its first entry or item, where serde writes it) names the
        // place's own variants, which the trace builds anyway.
        let own_tag = self
            .current
            .recent
            .first()
            .is_some_and(|p| match &self.current.tree {
                Sample::Map(_) => p.as_slice() == [1],
                Sample::Array(_) => p.as_slice() == [0],
                _ => false,
            });
        let answers = self.current.probe && !own_tag && message.contains("unknown variant ");
        // A sample's value refused here belongs elsewhere; a probe refused for anything but
        // an unknown variant shows no enum there.
        let built_value = expected.and_then(|e| self.built_values.get(e));
        let mut refined = if self.current.from_sample || (self.current.probe && !answers) {
            Vec::new()
        } else if let (true, Some(value)) = (built_already, built_value) {
            // The type as it was built, where the refusal asks for it.
            crate::search::substitute(&self.current, message, value)
        } else if built_already {
            Vec::new()
        } else {
            refine(&self.current, message)
        };
        if let (false, Some(expected)) = (built_already, expected) {
            self.building.push(Building {
                lineage: self.current.lineage.clone(),
                expected: expected.to_string(),
                at: refined
                    .iter()
                    .map(|c| steps_to(&c.tree, c.recent.last()?))
                    .collect(),
            });
        }
        let stalled = self.current.stalled || self.current.repeats_refusal(message);
        for c in &mut refined {
            c.probe = false;
            c.answer = answers;
            c.parent_refusal = Some((
                message.to_string(),
                self.current.suspected(message).unwrap_or(0),
            ));
            c.stalled = stalled;
        }
        self.push_refined(refined);
        if self.next() {
            return true;
        }
        self.settle();
        // A place that accepted a value was looking for others: the next run hands it what
        // it accepts, and the refusal of a further guess blames nothing else.
        !self.accepted.is_empty()
    }
}

/// A map that is an internally tagged variant (its first entry a tag, every key a str) as
/// the sequence serde also reads it from: its tag alone, the content to follow it. With the
/// map's keys and tag, which name the variant's struct.
fn as_sequence(node: &Sample, tag_keys: &BTreeSet<String>) -> Option<(Vec<String>, Sample)> {
    let Sample::Map(entries) = node else {
        return None;
    };
    let keys: Vec<String> = entries
        .iter()
        .map(|(k, _)| match k {
            Sample::Str(k) => Some(k.clone()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    match entries.first()? {
        // A variant's content is a struct of its own.
        (Sample::Str(k), Sample::Str(tag)) if tag_keys.contains(k) => {
            let mut name = keys;
            name.push(tag.clone());
            Some((name, Sample::Array(vec![Sample::Str(tag.clone())])))
        }
        // A struct that is no tagged variant stays a map: handed as a sequence, each of its
        // fields is searched again from nothing, which a nesting of fixed-size arrays turns
        // into a search that nests nils without end.
        _ => None,
    }
}

/// The strs a value holds, keys and values: the tags and names it chose.
fn words(sample: &Sample) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut stack = vec![sample];
    while let Some(node) = stack.pop() {
        match node {
            Sample::Str(s) => {
                out.insert(s.as_str());
            }
            Sample::Array(items) => stack.extend(items),
            Sample::Map(entries) => stack.extend(entries.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    out
}

/// What the trace knows of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Status {
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
pub(super) struct EnumState {
    pub(super) variants: Vec<&'static str>,
    pub(super) status: Vec<Status>,
    /// Variants runs no longer take by default (refused, or refused after being traced).
    pub(super) avoid: BTreeSet<usize>,
    /// The choices of the run that met it first, before it: how a run gets to it.
    pub(super) route: BTreeMap<String, usize>,
}

impl EnumState {
    /// The variant a run takes where nothing asks for another: the first traced one that
    /// does not recurse, else the first not yet known to fail or recurse, else the first.
    pub(super) fn default_variant(&self, recursive: &BTreeSet<usize>) -> usize {
        let usable = |i: &usize| !self.avoid.contains(i) && !recursive.contains(i);
        (0..self.variants.len())
            .filter(usable)
            .find(|i| self.status.get(*i) == Some(&Status::Traced))
            .or_else(|| (0..self.variants.len()).find(usable))
            .or_else(|| (0..self.variants.len()).find(|i| !self.avoid.contains(i)))
            .unwrap_or(0)
    }
}

/// What the trace learned of one request the type's `Deserialize` made (a node of the
/// ledger, [`crate::ledger`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Request {
    /// What was asked: `a str`, `a sequence`, `struct Inner`, `any value`.
    pub(super) what: String,
    /// A run that went through passed through it.
    pub(super) built: bool,
    /// Every run that asked it ended recursing into a container it was inside: its content
    /// is that container, traced where it was first met.
    pub(super) recursed: bool,
    /// The last refusal of a run that asked it and failed.
    pub(super) refusal: Option<String>,
    /// It is a variant of the enum at the place before its `::`.
    pub(super) variant: bool,
    /// Read with `deserialize_ignored_any`: whatever it holds is skipped unseen.
    pub(super) ignored: bool,
    /// A variant named by its tag that was accepted only with a collection inside it empty
    /// or a nil (an `Option` left `None`): what those hold was never built.
    pub(super) emptied: bool,
}

/// What the trace knows of a struct it met.
#[derive(Clone, Debug, Default)]
pub(super) struct StructMet {
    /// How many fields a run read when one read it whole: a struct with fewer fields than
    /// names has aliases.
    pub(super) read: Option<usize>,
    /// The enum variant the run that first met it was inside (innermost), to take again to
    /// meet it.
    pub(super) within: Option<(String, usize)>,
    /// Its place in the run that first met it (`.0??`): a question's run takes every
    /// option and collection on the way there.
    pub(super) place: String,
}

#[derive(Default)]
pub(super) struct State {
    /// The structs handed samples (an adjacently tagged enum, a struct with a flattened
    /// field), by their serde key, and the place where each is searched.
    pub(super) sampled_structs: BTreeMap<String, String>,
    /// Every request any run made, by key: what the ledger is made of.
    pub(super) requests: BTreeMap<String, Request>,
    /// The keys this run asked, in order.
    pub(super) asked: Vec<String>,
    pub(super) containers: BTreeMap<String, Container>,
    /// What each place (by path) was seen to hold, in any run.
    pub(super) seen: BTreeMap<String, Shape>,
    /// The named containers the current run is inside.
    pub(super) open: Vec<String>,
    /// The options, sequences and maps the current run is inside, by place.
    pub(super) escapable: Vec<String>,
    /// Places that hand out `None` or an empty collection instead of descending, because
    /// descending recursed.
    pub(super) escapes: BTreeSet<String>,
    /// Where the current run's recursion is to be cut: the innermost escapable place.
    pub(super) cut_at: Option<String>,
    /// What is known of each enum met, by its key.
    pub(super) enums: BTreeMap<String, EnumState>,
    /// The variant this run explores, taken where the run first meets its enum outside
    /// itself, and whether the run took it.
    pub(super) exploring: Option<(String, usize)>,
    pub(super) explored: bool,
    /// The variant each enum took where this run first met it outside itself: the route by
    /// which a run reaches an enum met for the first time.
    pub(super) choices: BTreeMap<String, usize>,
    /// The enum variants this run is inside: the enum, the variant, how many places the
    /// run had read when it entered, and how many containers it was inside.
    pub(super) frames: Vec<(String, usize, usize, usize)>,
    /// The innermost variant a failing run's error passed out of.
    /// (the enum, the variant, how many places the run had read, how many variants it was
    /// inside when it entered).
    pub(super) failed_in: Option<(String, usize, usize, usize)>,
    /// The innermost option, sequence or map a failing run's error passed out of, how many
    /// variants the run was inside and how many places it had read when it entered it.
    pub(super) refused_inside: Option<(String, usize, usize)>,
    /// Variants of each enum that led back into a container the run was inside.
    pub(super) recursive_variants: BTreeMap<String, BTreeSet<usize>>,
    /// Whether this run marked a variant recursive (the next run will avoid it).
    pub(super) learned: bool,
    /// The leaves of the samples given: what a leaf that refuses is handed first.
    pub(super) from_samples: Vec<Sample>,
    /// The maps and sequences of the samples given: what a place read through serde's
    /// buffering is handed first, so that a sample is judged there by the rule the trace's
    /// own values are.
    pub(super) sample_values: Vec<Sample>,
    /// The key of each distinct type by serde name and visitor type: a generic struct with
    /// two parameters is two shapes.
    pub(super) identities: BTreeMap<(String, &'static str), String>,
    /// Each place that searches a value it accepts, by its key (the innermost container's
    /// name and the path inside it).
    pub(super) searches: BTreeMap<String, Search>,
    /// The searching places this run read, in order (a collection also when it ended): the
    /// last is blamed for a refusal.
    pub(super) read: Vec<String>,
    /// The structs this run is inside, by key.
    pub(super) struct_keys: Vec<String>,
    /// The place blamed last, for the error when nothing is accepted.
    pub(super) last_blamed: Option<String>,
    /// Places whose refusals said nothing to learn from, with what they said.
    pub(super) gaps: BTreeMap<String, String>,
    /// The field each listed name reads, of the structs with aliases a trace before this
    /// one learnt.
    pub(super) aliases: super::Aliases,
    /// The keys tags were found under ([`super::Names::tag_keys`]).
    pub(super) tag_keys: BTreeSet<String>,
    /// Every struct met, by the names serde lists for it.
    pub(super) structs: BTreeMap<&'static [&'static str], StructMet>,
    /// The question this run puts to the struct it names, where it meets it first; and the
    /// answer.
    pub(super) question: Option<(&'static [&'static str], super::aliases::Question)>,
    pub(super) answer: Option<String>,
}

impl State {
    /// How the trace named what it met.
    pub(super) fn names(&self) -> super::Names {
        super::Names {
            identities: self.identities.clone(),
            sampled_structs: self.sampled_structs.keys().cloned().collect(),
            aliases: self.aliases.clone(),
            tag_keys: self.tag_keys.clone(),
        }
    }

    /// This run asks for `what` at `key`.
    pub(super) fn ask(&mut self, key: &str, what: impl FnOnce() -> String) {
        self.requests
            .entry(key.to_string())
            .or_insert_with(|| Request {
                what: what(),
                ..Request::default()
            });
        self.asked.push(key.to_string());
    }

    /// The enum at `key` lists `variants`: each is a request, asked or not.
    pub(super) fn list_variants(&mut self, key: &str, variants: &[&str]) {
        for variant in variants {
            self.requests
                .entry(format!("{key}::{variant}"))
                .or_insert_with(|| Request {
                    what: "a variant".into(),
                    variant: true,
                    ..Request::default()
                });
        }
    }

    /// How this run ended, for every request it made: `None` when it went through.
    fn settle_asked(&mut self, failure: Option<&str>) {
        for key in std::mem::take(&mut self.asked) {
            let Some(request) = self.requests.get_mut(&key) else {
                continue;
            };
            match failure {
                None => request.built = true,
                Some(RECURSED) => request.recursed = true,
                Some(refusal) => request.refusal = Some(refusal.to_string()),
            }
        }
    }

    pub(super) fn begin_run(&mut self) {
        self.asked.clear();
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
        self.refused_inside = None;
    }

    /// Sets up the next run to take a variant not yet taken. False when every variant of
    /// every enum met has been.
    pub(super) fn explore_next_variant(&mut self) -> bool {
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
    pub(super) fn finish_exploring(&mut self, changed: bool) {
        let Some((key, v)) = self.exploring.clone() else {
            return;
        };
        let Some(status) = self.enums.get_mut(&key).and_then(|e| e.status.get_mut(v)) else {
            self.exploring = None;
            return;
        };
        // A failure recovered on the way (a place inside the variant searching on, for each
        // variant of a tagged enum it holds) is retried by the same route.
        if changed && self.explored && !matches!(status, Status::Refused(_)) {
            return;
        }
        if *status == Status::Untried {
            if self.explored || changed {
                return;
            }
            *status = Status::Unreached;
        }
        self.exploring = None;
    }

    /// The key of the type serde names `name` and reads with a visitor of type `visitor`.
    pub(super) fn identify(&mut self, name: &'static str, visitor: &'static str) -> String {
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
    pub(super) fn unseen(&self) -> Vec<Unseen> {
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
    pub(super) fn panicked(&mut self) {
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
    pub(super) fn search_value(
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

    /// The place `key` searches is read through serde's buffering: from now on it is also
    /// handed the samples' maps and sequences.
    pub(super) fn buffered(&mut self, key: &str) {
        if let Some(search) = self.searches.get_mut(key) {
            if !search.buffered {
                search.buffered = true;
                search.hand_samples(&self.sample_values);
            }
        }
    }

    /// A run went through: every place it read accepts what it was handed. True when a
    /// place searches on (for the other variants of what it accepts).
    pub(super) fn accept_run(&mut self) -> bool {
        self.settle_asked(None);
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
            let lineage = search.current.lineage.clone();
            search.resolve_fills(&lineage, &value);
            // A value from elsewhere (a sample's) that holds something where a fill was made
            // built what the fill asked for.
            let names = value.named_variants(&self.tag_keys);
            for fill in search.fills.iter_mut().filter(|f| !f.resolved) {
                fill.resolved = fill.filled_by(&value, &names);
            }
            if !search.sampling {
                // A collection traced as a type: it needs no search.
                search.settled = true;
                continue;
            }
            if search.current.probe {
                // The word probed is no enum's: nothing new.
                if search.next() {
                    more = true;
                } else {
                    search.settle();
                }
                continue;
            }
            // New: a word (a tag, a key) or a kind of value (one of `deserialize_any`'s
            // probes) no value accepted before had.
            let known: BTreeSet<&str> = search.accepted.iter().flat_map(words).collect();
            let new_kind = !search.accepted.iter().any(|a| a.kind() == value.kind());
            let new_word = words(&value).iter().any(|w| !known.contains(w));
            let repeat = !new_kind && !search.current.reshaped && !new_word;
            if !repeat {
                search.repeats = 0;
            } else if !search.current.sampled {
                search.repeats += 1;
            }
            for outer in value.named_variants(&self.tag_keys) {
                let inside = search.inside.entry(outer.to_string()).or_default();
                // serde reads an adjacently tagged enum's tag as an enum of its own variants:
                // that read is the tag, not an enum inside.
                let tag = search
                    .enums_read
                    .iter()
                    .position(|r| r.chosen == outer && r.variants.contains(&outer));
                for (_, read) in search
                    .enums_read
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| Some(*i) != tag)
                {
                    let variants: Vec<String> =
                        read.variants.iter().map(|v| v.to_string()).collect();
                    let e = inside.entry((variants.clone(), None)).or_default();
                    e.variants = variants;
                    e.taken.insert(read.chosen.clone());
                }
                for ((_, at), e) in inside.iter_mut() {
                    if let Some(at) = at {
                        e.take_named_at(&value, at);
                    }
                }
            }
            if search.current.from_sequence && !new_word {
                if !search.reshapes.contains(&value) {
                    search.reshapes.push(value);
                }
            } else if !search.accepted.contains(&value) {
                if search.current.from_sample {
                    search.given.push(value.clone());
                }
                search.accepted.push(value);
            }
            // Other guesses at the value just found are not tried; other variants are, and
            // the value with each of its empty sequences holding one element (what that
            // element is, the refusals tell), so that attacks on an element reach one.
            let found = search.current.clone();
            search.stack.retain(|c| !c.superseded_by(&found));
            // Breadth over the variants: what parts from the value found earliest (another
            // variant of an outer enum) goes on top, so that a search deep in one variant's
            // content does not spend its tries before the variants after it are built.
            // A sample's probes stay on top: each asks about a value known to be valid.
            search.stack.sort_by_key(|c| {
                (
                    !c.stalled,
                    c.probe || c.answer,
                    std::cmp::Reverse(c.shared_lineage(&found)),
                )
            });
            let explores = search.kind != Searching::Leaf;
            // Nils only in a value naming a tagged variant: what the ledger's line for that
            // variant needs built (an `Option` left `None` in an untagged value says nothing).
            let fill_nils =
                super::fills_nils() && !found.tree.named_variants(&self.tag_keys).is_empty();
            // Not from a repeat: a value that accepts anything (an unknown key's) would be
            // filled without end.
            if explores && !repeat {
                let filled: Vec<(Candidate, _)> = found
                    .tree
                    .paths()
                    .into_iter()
                    .filter_map(|p| match found.tree.at(&p) {
                        Some(Sample::Array(items)) if items.is_empty() => {
                            Some((p, Sample::Array(vec![Sample::Nil])))
                        }
                        Some(Sample::Map(entries)) if entries.is_empty() => Some((
                            p,
                            Sample::Map(vec![(Sample::Str(String::new()), Sample::Nil)]),
                        )),
                        // A nil that may be an `Option` left empty: handed a value, its
                        // refusals say which (a number, which ends a value that takes any).
                        Some(Sample::Nil) if fill_nils && !is_key(&found.tree, &p) => {
                            Some((p, Sample::Int(0)))
                        }
                        _ => None,
                    })
                    .filter_map(|(p, one)| {
                        let mut c = found.clone();
                        // Filled in a sample's value: its first refusal names what the
                        // collection holds, most often a type built already.
                        c.answer = found.sampled;
                        c.reshaped = false;
                        c.suspect_rank = 0;
                        let nil = matches!(c.tree.at(&p)?, Sample::Nil);
                        *c.tree.at_mut(&p)? = one;
                        let at = steps_to(&c.tree, &p);
                        let mut element = p.clone();
                        element.push(0);
                        c.recent.retain(|r| !r.starts_with(&p));
                        c.recent.push(element);
                        c.names_variant = true;
                        Some((c, (at, nil)))
                    })
                    .collect();
                let count = filled.len();
                let (filled, wheres): (Vec<Candidate>, Vec<_>) = filled.into_iter().unzip();
                search.push_refined(filled);
                let names: Vec<String> = found
                    .tree
                    .named_variants(&self.tag_keys)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                if !names.is_empty() {
                    search.filled_nils |= fill_nils;
                    let fills: Vec<Fill> = search
                        .stack
                        .iter()
                        .rev()
                        .take(count)
                        .zip(wheres)
                        .map(|(c, (at, nil))| Fill {
                            lineage: c.lineage.clone(),
                            tree: c.tree.to_bytes(),
                            names: names.clone(),
                            at,
                            nil,
                            holds: None,
                            resolved: false,
                        })
                        // One tried already comes from elsewhere: its fate is that one's.
                        .filter(|f| !search.tried.contains(&f.tree))
                        .map(|mut f| {
                            // A value accepted before (a sample's, handed first) may already
                            // hold something there.
                            let tag_keys = &self.tag_keys;
                            f.resolved = search
                                .accepted
                                .iter()
                                .any(|a| f.filled_by(a, &a.named_variants(tag_keys)));
                            f
                        })
                        .collect();
                    search.fills.extend(fills);
                }
            }
            // An internally tagged variant read from serde's buffer names, as a map, only the
            // fields it must hold: an `Option` or a `default` field left out is never asked
            // for. Read as a sequence it asks for each of its fields in turn. Once a variant
            // (by its keys and tag).
            if explores && !repeat && fill_nils {
                let sequences: Vec<Candidate> = found
                    .tree
                    .paths()
                    .into_iter()
                    .filter(|p| !is_key(&found.tree, p))
                    .filter_map(|p| {
                        let (keys, sequence) = as_sequence(found.tree.at(&p)?, &self.tag_keys)?;
                        if !search.as_sequence.insert(keys) {
                            return None;
                        }
                        let mut c = found.clone();
                        c.answer = false;
                        *c.tree.at_mut(&p)? = sequence;
                        c.recent.retain(|r| !r.starts_with(&p));
                        c.recent.push(p);
                        c.names_variant = true;
                        c.reshaped = true;
                        c.from_sequence = true;
                        Some(c)
                    })
                    .collect();
                search.push_refined(sequences);
            }
            // A sample's value: each word in it probed, to find the enums read inside it
            // from serde's buffer and take their other variants there.
            if found.from_sample {
                let probes = found.probes();
                search.push_refined(probes);
            }
            if explores && search.repeats < MAX_REPEATS && search.next() {
                more = true;
            } else {
                search.settle();
            }
        }
        more
    }

    /// After a failed run: changes what the next run does so that it gets past the failure.
    /// False when nothing is left to change.
    pub(super) fn recover(&mut self, error: &TraceFailure) -> bool {
        self.settle_asked(Some(&error.0));
        self.reveal_tagged_variants(&error.0);
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
        let start = failed_in.as_ref().map_or(0, |(_, _, start, _)| *start);
        read.drain(..start.min(read.len()));
        // An option, sequence or map the error passed out of, inside the variant that failed
        // (or inside no variant): what was read inside it is blamed first; when nothing there
        // has a value left to try, it escapes (`None`, empty), and the place that refused
        // stays a refused request of the ledger. Only then is what holds it blamed.
        let escape = self.refused_inside.take().filter(|(_, entered_at, _)| {
            failed_in
                .as_ref()
                .is_none_or(|(_, _, _, depth)| *entered_at > *depth)
        });
        let split = escape.as_ref().map_or(0, |(_, _, read_at)| {
            read_at.saturating_sub(start).min(read.len())
        });
        let mut outer = read;
        let mut inner = outer.split_off(split);
        inner.dedup();
        outer.dedup();
        if self.blame_read(&inner, &error.0) {
            return true;
        }
        if let Some((place, _, _)) = escape {
            if self.escapes.insert(place) {
                return true;
            }
        }
        if self.blame_read(&outer, &error.0) {
            return true;
        }
        if let Some((key, v, _, _)) = failed_in {
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

    /// Blames the places `read` read, the last first, for `message`: true when one has
    /// something else to try.
    fn blame_read(&mut self, read: &[String], message: &str) -> bool {
        let error = TraceFailure(message.to_string());
        for key in read.iter().rev() {
            let Some(search) = self.searches.get_mut(key) else {
                continue;
            };
            self.last_blamed = Some(key.clone());
            // An untagged enum read inside a tagged variant's content is a gap of the variant,
            // not of the place: the place's other variants do not hold it.
            if search.kind == Searching::Any
                && error
                    .0
                    .contains("did not match any variant of untagged enum")
            {
                let named = search.current.tree.named_variants(&self.tag_keys);
                let lines: Vec<String> = self
                    .requests
                    .keys()
                    .filter(|line| {
                        line.rsplit_once("::").is_some_and(|(place, variant)| {
                            named.contains(&variant)
                                && (place == key || self.sampled_structs.get(place) == Some(key))
                        })
                    })
                    .cloned()
                    .collect();
                // A value naming no variant that is a line of its own: the place's gap.
                if lines.is_empty() {
                    self.gaps.insert(key.clone(), error.0.clone());
                }
                for line in lines {
                    self.gaps.insert(line, error.0.clone());
                }
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
        false
    }

    /// A refusal naming an enum's variants at a place read through serde's buffering (an
    /// internally or adjacently tagged enum: `unknown variant `x`, expected one of `A`, `B``)
    /// reveals them: each is a request of that place, built when a value with its tag is
    /// accepted there.
    fn reveal_tagged_variants(&mut self, message: &str) {
        let names =
            crate::search::quoted_list(message.split_once("expected").map_or("", |(_, e)| e));
        let Some(unknown) = crate::search::quoted_after(message, "unknown variant ") else {
            return;
        };
        // The variant name of an externally tagged enum, refused in a value handed whole: the
        // enum gave its variants to `deserialize_enum` and holds them by its own name; no tag
        // is revealed. (Only an externally tagged enum calls `deserialize_enum`.)
        let revealed: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        if self
            .enums
            .values()
            .any(|known| known.variants.iter().copied().collect::<BTreeSet<_>>() == revealed)
        {
            // The same enum may also be read inside serde's buffering.
            self.reveal_enum_in_content(&unknown, &names);
            return;
        }
        // The place whose own tag was refused: a tag leaf of a struct, or a value handed
        // whole whose tag (its first entry or item, where serde writes it and a search puts
        // it) holds the refused word. A refusal from elsewhere is an enum inside a tagged
        // variant's content, read through serde's buffering, which has no places: it is kept
        // as an enum inside that variant.
        let own_tag = |search: &Search| match search.kind {
            Searching::Leaf => {
                search.parent_struct.is_some()
                    && matches!(&search.current.tree, Sample::Str(s) if *s == unknown)
            }
            _ => match &search.current.tree {
                Sample::Map(entries) => entries
                    .first()
                    .is_some_and(|(_, v)| matches!(v, Sample::Str(s) if *s == unknown)),
                Sample::Array(items) => {
                    matches!(items.first(), Some(Sample::Str(s)) if *s == unknown)
                }
                _ => false,
            },
        };
        // A place whose variants its tag named before names the same ones again: a list of
        // others comes from an enum inside that was handed the outer tag's word.
        let its_own_names = |key: &str| {
            let prefix = format!("{key}::");
            let known: Vec<&str> = self
                .requests
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter(|rest| !rest.contains("::") && !rest.contains('.'))
                .collect();
            known.is_empty() || names.iter().all(|n| known.contains(&n.as_str()))
        };
        // A struct searched as a whole (one with a field refusing every value) has a tag of
        // its own only where it is an adjacently tagged enum: a key of its own that a value
        // put first is no tag.
        let struct_without_tag = |key: &str| {
            self.searches[key].kind == Searching::Collection
                && !self.sampled_structs.values().any(|at| at == key)
        };
        let Some(key) = self.read.iter().rev().find(|key| {
            self.searches.get(*key).is_some_and(own_tag)
                && (self.searches[*key].kind == Searching::Leaf || its_own_names(key))
                && !struct_without_tag(key)
        }) else {
            self.reveal_enum_in_content(&unknown, &names);
            return;
        };
        if let Some(Sample::Map(entries)) = self.searches.get(key).map(|s| &s.current.tree) {
            // A probe's word is the kit's own, never a type's tag.
            if let Some((Sample::Str(tag), _)) = entries
                .first()
                .filter(|(k, _)| *k != Sample::Str(UNKNOWN_NAME.into()))
            {
                self.tag_keys.insert(tag.clone());
            }
        }
        // A tag read inside a struct (an adjacently tagged enum, which serde reads as a
        // struct of its name) names that enum's variants, keyed by its name as an externally
        // tagged enum's are; a tag read through serde's buffering names the variants of the
        // place (an internally tagged enum has no name of its own).
        let key = match self.searches.get(key) {
            Some(search) if search.kind == Searching::Leaf => key
                .rsplit_once('.')
                .map_or(key.clone(), |(scope, _)| scope.to_string()),
            // The place of an adjacently tagged enum read whole: keyed by its name.
            _ => self
                .sampled_structs
                .iter()
                .find(|(_, at)| *at == key)
                .map_or(key.clone(), |(name, _)| name.clone()),
        };
        for name in names {
            self.requests
                .entry(format!("{key}::{name}"))
                .or_insert_with(|| Request {
                    what: "a variant (named by its tag)".into(),
                    variant: true,
                    ..Request::default()
                })
                .refusal
                .get_or_insert_with(|| message.to_string());
        }
    }

    /// A refusal of the word `unknown` by an enum of the variants `names` that is no place's
    /// own tag: an enum inside a tagged variant's content, read from serde's buffer (which
    /// has no places, and hands the enum no value of the tracer's). It is kept as an enum
    /// inside every variant the value holding the word names, so that a variant accepted
    /// only with some of its variants is not taken for built.
    fn reveal_enum_in_content(&mut self, unknown: &str, names: &[String]) {
        let tag_keys = &self.tag_keys;
        let holds_it = |search: &Search| {
            !search.current.tree.named_variants(tag_keys).is_empty()
                && words(&search.current.tree).contains(unknown)
        };
        let Some(key) = self
            .read
            .iter()
            .rev()
            .find(|key| self.searches.get(*key).is_some_and(holds_it))
            .cloned()
        else {
            return;
        };
        // The place's own variants (its tag displaced from the first entry, where the own
        // tag's refusal is looked for): no enum inside it, and every one is a line already.
        if names
            .iter()
            .all(|name| self.requests.contains_key(&format!("{key}::{name}")))
        {
            return;
        }
        let Some(search) = self.searches.get_mut(&key) else {
            return;
        };
        // Where the word was put last: the same word elsewhere was refused or ignored before.
        let tree = &search.current.tree;
        let recent = search.current.recent.last().cloned().unwrap_or_default();
        let places: Vec<Vec<Step>> = tree
            .paths()
            .iter()
            .filter(|p| p.starts_with(&recent))
            .filter(|p| matches!(tree.at(p), Some(Sample::Str(s)) if s == unknown))
            .filter_map(|p| steps_to(tree, p))
            .collect();
        for variant in tree.named_variants(tag_keys) {
            let inside = search.inside.entry(variant.to_string()).or_default();
            for at in &places {
                let e = inside
                    .entry((names.to_vec(), Some(at.clone())))
                    .or_default();
                e.variants = names.to_vec();
                for accepted in &search.accepted {
                    if accepted.named_variants(tag_keys).contains(&variant) {
                        e.take_named_at(accepted, at);
                    }
                }
            }
        }
    }

    /// What the trace knows of every request made: the nodes it gives the ledger.
    pub(super) fn nodes(&mut self) -> Vec<super::Node> {
        use super::{Node, NodeTrace};
        self.build_tagged_variants();
        // Every kind a self-describing value holds (bytes aside: `serde_json::Value` has none).
        let accepts_anything = |search: &Search| {
            probes()
                .iter()
                .filter(|p| !matches!(p, Sample::Bin(_)))
                .all(|p| search.accepted.contains(p))
        };
        // What a run asked inside an adjacently tagged enum before its tag named the
        // variants is the tag and content read as plain fields: the variants stand for them.
        let superseded = |key: &str| {
            key.split_once('.')
                .is_some_and(|(scope, _)| self.sampled_structs.contains_key(scope))
        };
        self.requests
            .iter()
            .filter(|(key, _)| !superseded(key))
            .map(|(key, request)| {
                let search = self.searches.get(key);
                let trace = if request.ignored {
                    NodeTrace::Opaque(
                        "read with deserialize_ignored_any: whatever it holds is skipped, \
                            unseen"
                            .into(),
                    )
                } else if let Some(search) = search.filter(|s| {
                    s.kind == Searching::Any && s.panicked.is_empty() && accepts_anything(s)
                }) {
                    NodeTrace::Opaque(if search.buffered {
                        "read through serde's buffering (an untagged or internally tagged \
                            enum, a flattened field), it accepted every kind of value tried: a \
                            catch-all took them, so what it really holds was never asked for"
                            .into()
                    } else {
                        "a self-describing value (serde_json::Value, hardpack::Value, a \
                            visitor of every kind): it accepts any document, its inside unseen"
                            .into()
                    })
                } else if request.emptied {
                    NodeTrace::PartlyBuilt(
                        "read through serde's buffering, it was accepted only with a \
                            collection inside it empty, an option none, or an enum inside it \
                            in some of its variants, in every value tried and every sample's: \
                            what the rest holds was never built"
                            .into(),
                    )
                } else if let Some(said) = self.gaps.get(key) {
                    NodeTrace::SeenInPart(if request.variant {
                        format!(
                            "an untagged enum inside it refuses without saying what it wants \
                                ({said}): its variants that are not a plain value are seen only \
                                through a sample"
                        )
                    } else {
                        format!(
                            "it refuses without saying what it wants ({said}): its variants \
                                that are not a plain value are seen only through a sample"
                        )
                    })
                } else if request.built || (request.recursed && request.refusal.is_none()) {
                    NodeTrace::Built
                } else if request.recursed {
                    // Asked in runs that recursed, refused in others: the recursion is
                    // traced where it was first met.
                    NodeTrace::Built
                } else if let Some(refusal) = &request.refusal {
                    NodeTrace::Refused(refusal.clone())
                } else {
                    NodeTrace::NeverReached
                };
                Node {
                    place: key.clone(),
                    what: request.what.clone(),
                    variant: request.variant,
                    trace,
                }
            })
            .collect()
    }

    /// The variants revealed by a tag at a searched place that a value accepted there names.
    fn build_tagged_variants(&mut self) {
        for (key, request) in self.requests.iter_mut() {
            if !request.variant || request.built {
                continue;
            }
            let Some((place, variant)) = key.rsplit_once("::") else {
                continue;
            };
            // An adjacently tagged enum's variants are keyed by its name: the place searched
            // is the struct serde reads it as.
            let search = self.searches.get(place).or_else(|| {
                self.sampled_structs
                    .get(place)
                    .and_then(|at| self.searches.get(at))
            });
            let Some(search) = search else {
                continue;
            };
            let tag_keys = &self.tag_keys;
            let names_it = |sample: &Sample| sample.named_variants(tag_keys).contains(&variant);
            // Built when every value with its tag accepted with a collection empty or an
            // option none was accepted again with something there: a variant accepted only
            // with its collections empty never had their elements built (a key that
            // validates, say). Where nils were not filled, a value with none is needed.
            let unfilled = search.unresolved_fill(variant);
            let holds_nil = |sample: &Sample| {
                !search.filled_nils
                    && sample
                        .paths()
                        .iter()
                        .any(|p| matches!(sample.at(p), Some(Sample::Nil)) && !is_key(sample, p))
            };
            // An enum read inside it with a variant no accepted value took: that variant's
            // content was never built.
            // An enum is one type wherever it is read in the content (a value may hold it at
            // another path, in another form): a variant taken at any of its places built it.
            let untaken = search.inside.get(variant).is_some_and(|enums| {
                let mut taken: BTreeMap<&[String], BTreeSet<&String>> = BTreeMap::new();
                // An enum listing the variant itself is the place's own (its tag read as
                // one) or the same enum inside itself: its variants are lines of their own.
                let own = |variants: &[String]| variants.iter().any(|v| v == variant);
                for ((variants, _), e) in enums.iter().filter(|((v, _), _)| !own(v)) {
                    taken.entry(variants).or_default().extend(&e.taken);
                }
                taken
                    .iter()
                    .any(|(variants, taken)| variants.iter().any(|v| !taken.contains(v)))
            });
            let mut naming = search.accepted.iter().filter(|s| names_it(s)).peekable();
            if naming.peek().is_some() {
                if !untaken && !unfilled && naming.any(|s| !holds_nil(s)) {
                    request.built = true;
                } else {
                    request.emptied = true;
                }
            }
        }
    }

    /// Makes the struct at `parent` search maps holding its tag field (`tag_key` names it)
    /// set to each variant the refusal names.
    pub(super) fn sample_struct(&mut self, parent: &str, tag_key: &str, message: &str) -> bool {
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
        self.tag_keys.insert(field.to_string());
        // The struct is an adjacently tagged enum, read whole from here on.
        if let Some((scope, _)) = tag_key.rsplit_once('.') {
            self.sampled_structs
                .insert(scope.to_string(), parent.to_string());
        }
        search.sampling = true;
        search.stack.clear();
        search.push_refined(names);
        search.hand_samples(&self.sample_values);
        search.next()
    }

    pub(super) fn record_container(&mut self, name: &str, container: Container) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Branch;

    fn s(text: &str) -> Sample {
        Sample::Str(text.into())
    }

    fn tags() -> BTreeSet<String> {
        BTreeSet::from(["t".to_string()])
    }

    #[test]
    fn only_a_tagged_variant_is_handed_as_its_tag_alone_and_named_by_its_keys_and_tag() {
        let tagged = Sample::Map(vec![(s("t"), s("Run")), (s("retries"), Sample::Int(0))]);
        assert_eq!(
            as_sequence(&tagged, &tags()),
            Some((
                vec!["t".to_string(), "retries".to_string(), "Run".to_string()],
                Sample::Array(vec![s("Run")])
            ))
        );
        // No tagged variant: a plain struct, empty, keyed by a number, or no map at all.
        let plain = Sample::Map(vec![(s("x"), Sample::F64(0.0)), (s("n"), Sample::Int(0))]);
        assert_eq!(as_sequence(&plain, &tags()), None);
        assert_eq!(as_sequence(&Sample::Map(Vec::new()), &tags()), None);
        assert_eq!(
            as_sequence(&Sample::Map(vec![(Sample::Int(1), Sample::Nil)]), &tags()),
            None
        );
        assert_eq!(as_sequence(&Sample::Array(vec![s("Run")]), &tags()), None);
    }

    #[test]
    fn steps_follow_map_entries_by_key_wherever_they_move() {
        // ["Run", {"x": 0.0, "target": "?"}]: the refused word at item 1, key `target`.
        let tree = Sample::Array(vec![
            s("Run"),
            Sample::Map(vec![(s("x"), Sample::F64(0.0)), (s("target"), s("?"))]),
        ]);
        let steps = steps_to(&tree, &[1, 3]).unwrap();
        assert_eq!(
            steps,
            [Step::Item(1), Step::Key("target".into())],
            "{steps:?}"
        );
        // The first entry's value: entry 0, key `x`.
        assert_eq!(
            steps_to(&tree, &[1, 1]),
            Some(vec![Step::Item(1), Step::Key("x".into())])
        );
        // A later value with another entry before it: the same steps reach it.
        let later = Sample::Array(vec![
            s("Run"),
            Sample::Map(vec![
                (s("unknown"), s("Member")),
                (s("x"), Sample::F64(0.0)),
                (s("target"), s("Everyone")),
            ]),
        ]);
        assert_eq!(follow(&later, &steps), Some(&s("Everyone")));
        assert_eq!(follow(&Sample::Array(vec![s("Run")]), &steps), None);
        // A word that is a key: the steps end at the map of one entry holding it.
        let keyed = Sample::Map(vec![(s("?"), Sample::Nil)]);
        assert_eq!(steps_to(&keyed, &[0]), Some(Vec::new()));
        // Under a key (not a value), no steps.
        let under_key = Sample::Map(vec![(Sample::Array(vec![s("?")]), Sample::Nil)]);
        assert_eq!(steps_to(&under_key, &[0, 0]), None);
    }

    #[test]
    fn an_enum_in_content_is_taken_only_by_the_name_where_it_is_read() {
        let mut inside = EnumInside {
            variants: vec!["Everyone".into(), "Member".into()],
            taken: BTreeSet::new(),
        };
        let at = [Step::Item(1), Step::Key("target".into())];
        let value = |target: Sample, other: Sample| {
            Sample::Array(vec![
                s("Run"),
                Sample::Map(vec![(s("other"), other), (s("target"), target)]),
            ])
        };
        // The other variant's name elsewhere in the value takes nothing.
        inside.take_named_at(&value(s("Everyone"), s("Member")), &at);
        assert_eq!(inside.taken, BTreeSet::from(["Everyone".to_string()]));
        // A variant with content: a map keyed by its name.
        inside.take_named_at(
            &value(Sample::Map(vec![(s("Member"), s("id"))]), Sample::Nil),
            &at,
        );
        assert_eq!(
            inside.taken,
            BTreeSet::from(["Everyone".to_string(), "Member".to_string()])
        );
        // A name that is not one of its variants takes nothing.
        let mut other = EnumInside {
            variants: vec!["A".into()],
            taken: BTreeSet::new(),
        };
        other.take_named_at(&value(s("B"), s("A")), &at);
        assert!(other.taken.is_empty());
    }

    fn branch(refinement: u32, index: u32) -> Branch {
        Branch {
            refinement,
            index,
            variant: true,
        }
    }

    #[test]
    fn a_fill_is_resolved_by_an_accepted_value_coming_from_it_or_by_its_twin() {
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        let fill = |lineage: Vec<Branch>, tree: &[u8], names: &[&str]| Fill {
            lineage,
            tree: tree.to_vec(),
            names: names.iter().map(|n| n.to_string()).collect(),
            at: None,
            nil: false,
            holds: None,
            resolved: false,
        };
        search.fills = vec![
            fill(vec![branch(0, 0), branch(3, 1)], b"a", &["Run"]),
            fill(vec![branch(0, 0), branch(3, 2)], b"b", &["Run"]),
            fill(vec![branch(0, 0), branch(5, 0)], b"b", &["Stop"]),
        ];
        assert!(search.unresolved_fill("Run"));
        assert!(search.unresolved_fill("Stop"));
        assert!(!search.unresolved_fill("Idle"));
        // A value two refinements after the first fill: it comes from it.
        search.resolve_fills(
            &[branch(0, 0), branch(3, 1), branch(4, 0), branch(6, 2)],
            &Sample::Nil,
        );
        assert!(search.fills[0].resolved && !search.fills[1].resolved);
        assert!(search.unresolved_fill("Run"));
        // A value from the third: the second is the same value, filled from elsewhere.
        search.resolve_fills(&[branch(0, 0), branch(5, 0)], &Sample::Nil);
        assert!(!search.unresolved_fill("Run"));
        assert!(!search.unresolved_fill("Stop"));
        // A value from before the fills resolves none.
        let mut fresh = Search::new(Searching::Any, Sample::Nil, Vec::new());
        fresh.fills = vec![fill(vec![branch(0, 0), branch(3, 1)], b"a", &["Run"])];
        fresh.resolve_fills(&[branch(0, 0)], &Sample::Nil);
        assert!(fresh.unresolved_fill("Run"));
    }

    #[test]
    fn a_fill_is_filled_only_by_a_value_of_its_variants_holding_something_where_it_was_made() {
        let fill = |nil, at: Option<Vec<Step>>| Fill {
            lineage: Vec::new(),
            tree: Vec::new(),
            names: vec!["A".into(), "B".into()],
            at,
            nil,
            holds: None,
            resolved: false,
        };
        let there = Some(vec![Step::Key("items".into())]);
        let holding = |node| Sample::Map(vec![(s("items"), node)]);
        let one_item = || holding(Sample::Array(vec![Sample::Int(1)]));
        let one_entry = || holding(Sample::Map(vec![(s("k"), Sample::Int(1))]));

        let empty = fill(false, there.clone());
        assert!(empty.filled_by(&one_item(), &["A", "B", "C"]));
        assert!(empty.filled_by(&one_entry(), &["B", "A"]));
        // Still empty there, a variant of the fill not named, nothing or nil there.
        assert!(!empty.filled_by(&holding(Sample::Array(Vec::new())), &["A", "B"]));
        assert!(!empty.filled_by(&holding(Sample::Map(Vec::new())), &["A", "B"]));
        assert!(!empty.filled_by(&one_item(), &["A"]));
        assert!(!empty.filled_by(&one_entry(), &["B"]));
        assert!(!empty.filled_by(&holding(Sample::Nil), &["A", "B"]));
        assert!(!empty.filled_by(&Sample::Map(Vec::new()), &["A", "B"]));
        // A collection was emptied there: a plain value is not it filled.
        assert!(!empty.filled_by(&holding(Sample::Int(1)), &["A", "B"]));

        let nil = fill(true, there);
        assert!(nil.filled_by(&holding(Sample::Int(1)), &["A", "B"]));
        assert!(nil.filled_by(&holding(s("x")), &["A", "B"]));
        assert!(!nil.filled_by(&holding(Sample::Nil), &["A", "B"]));
        assert!(nil.filled_by(&one_item(), &["A", "B"]));
        assert!(nil.filled_by(&one_entry(), &["A", "B"]));
        assert!(!nil.filled_by(&holding(Sample::Int(1)), &["A"]));
        assert!(!nil.filled_by(&holding(Sample::Array(Vec::new())), &["A", "B"]));
        assert!(!nil.filled_by(&holding(Sample::Map(Vec::new())), &["A", "B"]));

        // A fill made nowhere is filled by nothing.
        assert!(!fill(false, None).filled_by(&one_item(), &["A", "B"]));
        assert!(!fill(true, None).filled_by(&holding(Sample::Int(1)), &["A", "B"]));
    }

    #[test]
    fn the_plain_value_of_each_kind_is_tried_before_the_samples_and_the_samples_in_order() {
        let mut search = Search::new(
            Searching::Any,
            Sample::Nil,
            vec![s("a"), Sample::Int(0), Sample::Bool(false)],
        );
        // Samples equal to a plain value (`0`) stay among the samples, in their order.
        search.hand_samples(&[Sample::Int(0), s("z")]);
        let next_first: Vec<(Sample, bool)> = search
            .stack
            .iter()
            .rev()
            .map(|c| (c.tree.clone(), c.from_sample))
            .collect();
        assert_eq!(
            next_first,
            vec![
                (Sample::Int(0), false),
                (Sample::Bool(false), false),
                (Sample::Int(0), true),
                (s("z"), true),
                (s("a"), false),
            ]
        );
    }

    #[test]
    fn past_its_budget_a_search_tries_only_the_samples_values_still_untried() {
        let mut search = Search::new(Searching::Any, Sample::Nil, vec![s("a"), s("b")]);
        search.hand_samples(&[s("z"), s("a"), Sample::Int(7)]);
        search.push_refined(vec![Candidate::new(s("refined"))]);
        search.tries = MAX_TRIES;
        let mut tried = Vec::new();
        while search.next() {
            tried.push(search.current.tree.clone());
        }
        // The refined value and the plain values are dropped; the samples keep their order.
        assert_eq!(tried, vec![s("z"), s("a"), Sample::Int(7)]);
        assert_eq!(search.tries, MAX_TRIES + 3);
        assert!(search.stack.is_empty());
    }

    #[test]
    fn what_comes_from_a_refusal_in_its_parents_words_is_tried_after_everything_else() {
        // `[nil, nil]` for `(bool, bool)`, refused for a nil where a boolean is wanted: the
        // value with its first nil made a sequence of nils is refused in the same words, about
        // more nils. Its own refinements still come, after the candidates that made a
        // difference.
        let message = "invalid type: unit value, expected a boolean";
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        search.push_refined(vec![Candidate::new(s("other"))]);
        let mut grown = Candidate::new(Sample::Array(vec![
            Sample::Array(vec![Sample::Nil; 2]),
            Sample::Nil,
        ]));
        grown.parent_refusal = Some((message.into(), 2));
        grown.recent = vec![vec![0]];
        search.current = grown;
        assert!(search.blame(message));
        assert_eq!(search.current.tree, s("other"));
        let mut tried = Vec::new();
        while search.next() {
            tried.push(search.current.tree.clone());
        }
        assert!(
            tried.contains(&Sample::Array(vec![
                Sample::Array(vec![Sample::Bool(false), Sample::Nil]),
                Sample::Nil
            ])),
            "{tried:?}"
        );
        assert!(search.stack.is_empty());
        // The first nil mended: the same words are about the second, the one left, and its
        // refinements go on top.
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        search.push_refined(vec![Candidate::new(s("other"))]);
        let mut mended = Candidate::new(Sample::Array(vec![Sample::Bool(false), Sample::Nil]));
        mended.parent_refusal = Some((message.into(), 2));
        mended.recent = vec![vec![0]];
        search.current = mended;
        assert!(search.blame(message));
        assert_eq!(
            search.current.tree,
            Sample::Array(vec![Sample::Bool(false); 2])
        );
        // A refusal in new words is progress too.
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        search.push_refined(vec![Candidate::new(s("other"))]);
        let mut mended = Candidate::new(Sample::Array(vec![Sample::Bool(false), Sample::Nil]));
        mended.parent_refusal = Some((
            "invalid type: unit value, expected a tuple of size 2".into(),
            1,
        ));
        mended.recent = vec![vec![1]];
        search.current = mended;
        assert!(search.blame(message));
        assert_eq!(
            search.current.tree,
            Sample::Array(vec![Sample::Bool(false); 2])
        );
    }

    #[test]
    fn a_type_built_once_is_handed_as_it_was_built_where_it_is_refused_again() {
        let message = "invalid type: unit value, expected struct Page";
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        let mut refused = Candidate::new(Sample::Array(vec![Sample::Nil]));
        refused.recent = vec![vec![0]];
        search.current = refused;
        // Refined into `[{}]` and `[[]]`; the map, filled, is accepted.
        assert!(search.blame(message));
        assert_eq!(
            search.current.tree,
            Sample::Array(vec![Sample::Map(Vec::new())])
        );
        let page = Sample::Map(vec![(s("n"), Sample::Int(1))]);
        let mut lineage = search.current.lineage.clone();
        lineage.push(branch(9, 0));
        search.resolve_fills(&lineage, &Sample::Array(vec![page.clone()]));
        assert!(search.built_types.contains("struct Page"));
        // Refused as the same type elsewhere: the value built is handed there.
        let mut again = Candidate::new(Sample::Array(vec![page.clone(), Sample::Nil]));
        again.recent = vec![vec![1]];
        search.current = again;
        assert!(search.blame(message));
        assert_eq!(search.current.tree, Sample::Array(vec![page.clone(), page]));
    }

    #[test]
    fn a_struct_searched_whole_takes_no_tag_of_its_own_from_a_word_put_first() {
        // A struct with a field that refuses every value is searched as a whole; a value put
        // `t` first, and an enum read inside refused the word there. The struct is no
        // tagged enum: no variants of its own come of it.
        let mut state = State::default();
        let mut search = Search::new(Searching::Collection, Sample::Map(Vec::new()), Vec::new());
        search.sampling = true;
        search.current = Candidate::new(Sample::Map(vec![
            (s("t"), s(UNKNOWN_NAME)),
            (
                s("f0"),
                Sample::Array(vec![Sample::Map(vec![(s("t"), s(UNKNOWN_NAME))])]),
            ),
        ]));
        state.searches.insert("Job.spec".into(), search);
        state.read.push("Job.spec".into());
        let message = format!("unknown variant `{UNKNOWN_NAME}`, expected `Run` or `Stop`");
        state.reveal_tagged_variants(&message);
        assert!(state.requests.is_empty(), "{:?}", state.requests.keys());
        // The same value at an adjacently tagged enum's place: the word is its tag.
        state
            .sampled_structs
            .insert("Job".into(), "Job.spec".into());
        state.reveal_tagged_variants(&message);
        let variants: Vec<&str> = state.requests.keys().map(String::as_str).collect();
        assert_eq!(variants, ["Job::Run", "Job::Stop"]);
    }

    #[test]
    fn a_refused_tag_first_in_a_sequence_names_the_variants_of_the_place_that_handed_it() {
        // An adjacently tagged enum handed whole as `[tag, content]` (as rmp-serde writes
        // it), its tag refused: the variants the refusal lists are the place's own.
        let mut state = State::default();
        let mut search = Search::new(Searching::Any, Sample::Nil, Vec::new());
        search.current = Candidate::new(Sample::Array(vec![
            s(UNKNOWN_NAME),
            Sample::Map(Vec::new()),
        ]));
        state.searches.insert("Msg.body".into(), search);
        state.read.push("Msg.body".into());
        state.reveal_tagged_variants(&format!(
            "unknown variant `{UNKNOWN_NAME}`, expected `Ping` or `Data`"
        ));
        let variants: Vec<&str> = state.requests.keys().map(String::as_str).collect();
        assert_eq!(variants, ["Msg.body::Data", "Msg.body::Ping"]);
    }
}
