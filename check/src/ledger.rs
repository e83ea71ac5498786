//! The ledger: every request a type's `Deserialize` makes, and whether the check saw it.
//!
//! Each request is a line, keyed as the tracer names its place (the innermost named
//! container and the path inside it: `Inner.items[]`, `Event::Data.0`, `` for the root):
//! each field of a struct or struct variant, each tuple element, a sequence's element, a
//! map's key and value, the inside of an option or a newtype, every enum and every variant
//! serde lists for it (or a tag's refusal names), every place read with `deserialize_any`.
//! The trace adds the requests of every run; each valid sample adds the requests it passes
//! through.
//!
//! A line is **closed** when a value went through it (a run of the trace, or a sample) and
//! the decoder checked got there (an attack landed in its place, or a valid document holding
//! it decoded). Otherwise it is **open**, with its reason ([`Open`]). The check is hardened
//! when no line is open and no payload broke the decoder: that is the one rule, and the
//! text, JSON and HTML reports are renderings of these lines.

use std::collections::{BTreeMap, BTreeSet};

use crate::report::{Outcome, Row};
use crate::shape::{Node, NodeTrace};

/// Why a line of the ledger is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Open {
    /// The type refused every value the tracer handed it there; the last refusal.
    Refused(String),
    /// Listed (an enum's variant) but no run of the trace and no sample got to it.
    NeverBuilt,
    /// It accepts any value: what it holds inside is unseen (why, in words).
    Opaque(String),
    /// It refuses without saying what it wants (an untagged enum): what it holds is seen only
    /// through a sample.
    SeenInPart(String),
    /// Built, but no payload got there under the decoder checked (each refused, or broke
    /// the decoder, before it).
    Unreached,
    /// Only samples the decoder refused hold it: the sample and the decoder's error.
    InsideRefusedSample {
        /// The sample's name.
        sample: String,
        /// What the decoder said.
        error: String,
    },
}

impl Open {
    /// The reason in words, and what would close it.
    pub fn reason(&self, decoder: &str) -> String {
        match self {
            Open::Refused(refusal) => format!(
                "refused every value tried (the last refusal: {refusal}); give a sample \
                 holding it (.sample(&value))"
            ),
            Open::NeverBuilt => "never built: no run of the trace and no sample got to it; \
                give a sample holding it (.sample(&value))"
                .into(),
            Open::Opaque(why) => {
                format!("opaque: {why}; give samples of what it really holds (.sample(&value))")
            }
            Open::SeenInPart(why) => format!("seen in part: {why}; give a sample holding it"),
            Open::Unreached => format!(
                "never reached under {decoder}: every document holding it was refused, or \
                 broke the decoder, before it, so no attack there tested anything; give \
                 samples the decoder accepts, or check that it reads the format the payloads \
                 are written in"
            ),
            Open::InsideRefusedSample { sample, error } => format!(
                "only inside the sample {sample}, which {decoder} refused ({error}); give a \
                 sample it accepts"
            ),
        }
    }

    /// A short name for machines: `refused`, `never-built`, `opaque`, `seen-in-part`,
    /// `unreached`, `inside-refused-sample`.
    pub fn name(&self) -> &'static str {
        match self {
            Open::Refused(_) => "refused",
            Open::NeverBuilt => "never-built",
            Open::Opaque(_) => "opaque",
            Open::SeenInPart(_) => "seen-in-part",
            Open::Unreached => "unreached",
            Open::InsideRefusedSample { .. } => "inside-refused-sample",
        }
    }
}

/// One request of the type and what the check saw of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its key: `Request.params[]`, `Event::Data`; empty for the root.
    pub place: String,
    /// What the type asked for there.
    pub what: String,
    /// It is an enum's variant.
    pub variant: bool,
    /// What put a value through it: `the trace`, `sample sample-0`.
    pub built_by: Option<String>,
    /// What showed the decoder got there.
    pub reached_by: Option<String>,
    /// Why it is open; `None` when closed.
    pub open: Option<Open>,
}

impl Line {
    /// The place for a person: `the root` for the root.
    pub fn name(&self) -> &str {
        if self.place.is_empty() {
            "the root"
        } else {
            &self.place
        }
    }
}

/// Which nodes a valid document of the type passes through: a sample given, or a document
/// the check wrote from the trace. The type's own `Deserialize` reads it, and every request
/// it makes is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passage {
    /// The document: a sample's name, or the id of the payload that holds it.
    pub sample: String,
    /// Whether the user gave it (a sample), not the check.
    pub given: bool,
    /// The index of the payload that holds it.
    pub row: usize,
    /// The keys of the nodes it passes through.
    pub keys: Vec<String>,
    /// The variants its tags may name where the trace found tagged variants: each closes
    /// only a line the trace has.
    pub tags: Vec<String>,
}

/// Every request of the type, and what the check saw of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    /// One line a request, in key order.
    pub lines: Vec<Line>,
}

/// What the ledger is made from.
pub(crate) struct Entries<'a> {
    /// The trace's requests.
    pub(crate) nodes: &'a [Node],
    /// Each valid sample's passage.
    pub(crate) passages: &'a [Passage],
    /// The keys of each place payloads name.
    pub(crate) place_keys: &'a BTreeMap<String, Vec<String>>,
    /// What each payload did.
    pub(crate) rows: &'a [Row],
    /// For an attack that decoded (by row index): the keys its document passes through, or
    /// `None` when the type's own `Deserialize` cannot be followed through it. Asked only
    /// where it would close a line nothing else closed: following a big document is slow.
    pub(crate) decoded_attack_keys: &'a dyn Fn(usize) -> Option<BTreeSet<String>>,
    /// Why the trace stopped, when it did.
    pub(crate) trace_error: Option<&'a str>,
}

impl Ledger {
    /// The ledger of a check's trace, samples and rows.
    pub(crate) fn new(entries: Entries<'_>) -> Ledger {
        let mut lines: BTreeMap<String, Line> = BTreeMap::new();
        let mut traced: BTreeMap<&str, &NodeTrace> = BTreeMap::new();
        for node in entries.nodes {
            traced.insert(&node.place, &node.trace);
            lines.insert(
                node.place.clone(),
                Line {
                    place: node.place.clone(),
                    what: node.what.clone(),
                    variant: node.variant,
                    built_by: (node.trace == NodeTrace::Built).then(|| "the trace".into()),
                    reached_by: None,
                    open: None,
                },
            );
        }
        // The root is a request even when the type asked nothing before refusing.
        lines.entry(String::new()).or_insert_with(|| Line {
            place: String::new(),
            what: "the type".into(),
            variant: false,
            built_by: None,
            reached_by: None,
            open: None,
        });

        // The samples: each builds what it passes; what decoded reaches it.
        let mut refused_samples: BTreeMap<&str, (&str, String)> = BTreeMap::new();
        let mut decoded_samples: BTreeSet<&str> = BTreeSet::new();
        for passage in entries.passages {
            let row = entries.rows.iter().find(|row| row.index == passage.row);
            let tags: Vec<&String> = passage
                .tags
                .iter()
                .filter(|t| lines.contains_key(*t))
                .collect();
            for key in passage.keys.iter().chain(tags) {
                let line = lines.entry(key.clone()).or_insert_with(|| Line {
                    place: key.clone(),
                    what: "a value".into(),
                    variant: key.contains("::"),
                    built_by: None,
                    reached_by: None,
                    open: None,
                });
                if line.built_by.is_none() {
                    line.built_by = Some(format!("the document {}", passage.sample));
                }
                match row.map(|r| &r.outcome) {
                    Some(Outcome::Accepted) => {
                        decoded_samples.insert(key);
                        if line.reached_by.is_none() {
                            line.reached_by =
                                Some(format!("the document {} decoded", passage.sample));
                        }
                    }
                    Some(Outcome::Refused(error)) if passage.given => {
                        refused_samples
                            .entry(key)
                            .or_insert((&passage.sample, error.clone()));
                    }
                    _ => {}
                }
            }
        }
        let passed =
            |p: &'_ Passage| -> Vec<String> { p.keys.iter().chain(&p.tags).cloned().collect() };
        let sampled: BTreeSet<String> = entries.passages.iter().flat_map(passed).collect();
        let given: BTreeSet<String> = entries
            .passages
            .iter()
            .filter(|p| p.given)
            .flat_map(passed)
            .collect();

        // The payloads: a place an attack landed in, or a valid document holding it decoded.
        // An attack that decoded may have been read around its place (a `null` where an
        // `Option` is, another variant): it reached only what its document passes through,
        // which is followed last, and only for a line still open.
        let mut decoded_attacks = Vec::new();
        for row in entries.rows {
            for (place, why) in row.reached_places() {
                if row.place.as_deref() == Some(place) && row.outcome == Outcome::Accepted {
                    decoded_attacks.push((row, place, why));
                    continue;
                }
                for key in entries.place_keys.get(place).into_iter().flatten() {
                    if let Some(line) = lines.get_mut(key) {
                        if line.reached_by.is_none() {
                            line.reached_by = Some(format!("{why} (#{})", row.index));
                        }
                    }
                }
            }
        }
        for (row, place, why) in decoded_attacks {
            let keys = entries.place_keys.get(place).into_iter().flatten();
            let open: Vec<&String> = keys
                .filter(|key| {
                    lines
                        .get(*key)
                        .is_some_and(|line| line.reached_by.is_none())
                })
                .collect();
            if open.is_empty() {
                continue;
            }
            let Some(through) = (entries.decoded_attack_keys)(row.index) else {
                continue;
            };
            for key in open {
                if through.contains(key) {
                    if let Some(line) = lines.get_mut(key) {
                        line.reached_by = Some(format!("{why} (#{})", row.index));
                    }
                }
            }
        }

        for line in lines.values_mut() {
            let trace = traced.get(line.place.as_str()).copied();
            let by_sample = sampled.contains(&line.place);
            // Only what a user gave shows what an opaque place really holds.
            let decoded_sample =
                decoded_samples.contains(line.place.as_str()) && given.contains(&line.place);
            line.open = match trace {
                // Opaque or seen in part: only a sample the decoder read shows what it holds.
                Some(NodeTrace::Opaque(why)) if !decoded_sample => Some(Open::Opaque(why.clone())),
                Some(NodeTrace::SeenInPart(why)) if !decoded_sample => {
                    Some(Open::SeenInPart(why.clone()))
                }
                // The samples' values were judged with the trace's: a sample naming the
                // variant does not build what none of them holds.
                Some(NodeTrace::PartlyBuilt(why)) => Some(Open::SeenInPart(why.clone())),
                Some(NodeTrace::Refused(refusal)) if !by_sample => {
                    Some(Open::Refused(refusal.clone()))
                }
                Some(NodeTrace::NeverReached) if !by_sample => Some(Open::NeverBuilt),
                None if !by_sample => Some(match (line.place.is_empty(), entries.trace_error) {
                    (true, Some(reason)) => Open::Refused(reason.to_string()),
                    _ => Open::NeverBuilt,
                }),
                _ => None,
            };
            if line.open.is_none() && line.reached_by.is_none() {
                line.open = Some(match refused_samples.get(line.place.as_str()) {
                    Some((sample, error)) if by_sample => Open::InsideRefusedSample {
                        sample: sample.to_string(),
                        error: error.clone(),
                    },
                    _ => Open::Unreached,
                });
            }
        }
        Ledger {
            lines: lines.into_values().collect(),
        }
    }

    /// The open lines.
    pub fn open(&self) -> Vec<&Line> {
        self.lines.iter().filter(|l| l.open.is_some()).collect()
    }

    /// No line is open.
    pub fn is_closed(&self) -> bool {
        self.lines.iter().all(|l| l.open.is_none())
    }
}
