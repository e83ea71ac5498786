//! The tracer's search for a value a place accepts, learning from what a refusal says.
//!
//! serde's own refusals name what was wanted: `missing field `id``, `unknown variant `x`,
//! expected one of `A`, `B``, `invalid type: unit value, expected a string`, `invalid length
//! 0, expected 32 bytes`, `unknown field `x``. A refused candidate is refined by the message
//! into the next candidates (a field added, a variant named, a node replaced by one of the
//! kind asked, a length taken from the message), tried depth first; the nodes changed last
//! are the first suspects. A validation message of a hand-written `Deserialize` says less:
//! its numbers and quoted words are tried as values of the node changed last.

use crate::sample::{Kind, Sample};

/// The str a search hands where a type wants an identifier it has not named yet: its
/// refusal lists the names it knows.
pub(crate) const UNKNOWN_NAME: &str = "hardpack-check-unknown";

/// A value to hand a place, the nodes changed last (the first suspects of a refusal), and
/// the refinements it came from.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub tree: Sample,
    pub recent: Vec<Vec<usize>>,
    pub lineage: Vec<Branch>,
    /// Set by [`refine`] on a candidate that names another variant than its siblings.
    pub names_variant: bool,
    /// Handed in another shape than the value it comes from (a struct as a sequence): its
    /// first acceptance is no repeat, though it holds no new word.
    pub reshaped: bool,
    /// It comes from a struct handed as a sequence: kept as a sample only where it holds a
    /// word the values before it did not.
    pub from_sequence: bool,
    /// A value of a sample given, handed whole: once accepted, each word in it is probed.
    pub from_sample: bool,
    /// It comes from a sample's value: what it finds is not counted against the search's
    /// repeats (a sample's variants and words are all worth building).
    pub sampled: bool,
    /// An accepted value with one word replaced by [`UNKNOWN_NAME`] (a refusal listing
    /// variants shows an enum there), or one node by a nil (a refusal naming the type
    /// expected there shows that type built): no other refusal of it is refined.
    pub probe: bool,
    /// A variant named where a probe showed an enum, or a collection filled in a sample's
    /// value: one try says what is there, so it is tried before anything found since.
    pub answer: bool,
    /// The refusal of the value it was refined from, and how many nodes of that value it
    /// could be about ([`Candidate::suspected`]).
    pub parent_refusal: Option<(String, usize)>,
    /// Refined from a value refused in its parent's words ([`Candidate::repeats_refusal`]):
    /// tried after every other candidate.
    pub stalled: bool,
    /// Which of the nodes its parent's refusal could be about it changed, in the order
    /// [`Candidate::suspects`] gives them: 0 for the likeliest.
    pub suspect_rank: usize,
}

/// One refinement a candidate came from: which (a number per refinement), which of its
/// candidates, and whether its candidates are the variants of an enum (kinds of value, for a
/// place read with `deserialize_any`) rather than guesses at one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Branch {
    pub refinement: u32,
    pub index: u32,
    pub variant: bool,
}

impl Candidate {
    pub(crate) fn new(tree: Sample) -> Self {
        Candidate {
            tree,
            recent: vec![Vec::new()],
            lineage: Vec::new(),
            names_variant: false,
            reshaped: false,
            from_sequence: false,
            from_sample: false,
            sampled: false,
            probe: false,
            answer: false,
            parent_refusal: None,
            stalled: false,
            suspect_rank: 0,
        }
    }

    /// Whether `message`, its refusal, is the refusal of the value it was refined from, in the
    /// same words, with no fewer nodes it could be about: its change may have answered nothing
    /// (a wrong node changed, or a nil made a tuple of nils, each refused as the nil before
    /// it). Inside serde's buffering a refusal names no place, so it may also be the next node
    /// refused alike: what is refined from it is tried last, not dropped. With fewer such
    /// nodes (a nil of `[nil, nil]` made `false`, where serde wants two booleans) the change
    /// answered the refusal, and the same words are the next node's; unless the node it
    /// changed was not the likeliest ([`Candidate::suspect_rank`]): serde still refuses the
    /// node before it, in the same words.
    pub(crate) fn repeats_refusal(&self, message: &str) -> bool {
        match &self.parent_refusal {
            Some((parent, suspected)) if parent == message => {
                self.suspect_rank > 0 || self.suspected(message).is_none_or(|n| n >= *suspected)
            }
            _ => false,
        }
    }

    /// How many of this candidate's nodes a refusal of a wrong kind of value could be about
    /// (`invalid type: unit value` counts the nils); none for another refusal.
    pub(crate) fn suspected(&self, message: &str) -> Option<usize> {
        let kind = message
            .strip_prefix("invalid type: ")
            .and_then(unexpected_kind)?;
        Some(
            self.tree
                .paths()
                .iter()
                .filter(|p| self.tree.at(p).is_some_and(|n| n.kind() == kind))
                .count(),
        )
    }

    /// The candidate with each str in it (a map's key too) replaced by [`UNKNOWN_NAME`] in
    /// turn, and each map or sequence inside it by a nil: where an enum reads the word, the
    /// refusal lists the enum's variants; where a named type reads the node, the refusal
    /// names it.
    pub(crate) fn probes(&self) -> Vec<Candidate> {
        self.tree
            .paths()
            .into_iter()
            .filter_map(|p| match self.tree.at(&p)? {
                Sample::Str(s) if s != UNKNOWN_NAME => Some((p, Sample::Str(UNKNOWN_NAME.into()))),
                Sample::Map(_) | Sample::Array(_) if !p.is_empty() => Some((p, Sample::Nil)),
                _ => None,
            })
            .filter_map(|(p, node)| {
                let mut c = self.with(&p, node)?;
                c.recent = vec![p];
                c.from_sample = false;
                c.probe = true;
                c.answer = false;
                // Each a question of its own, not a guess at one value: an answer to one
                // supersedes none of the others.
                c.names_variant = true;
                Some(c)
            })
            .collect()
    }

    /// Whether this candidate is only another guess at what `accepted` already found: it
    /// left `accepted`'s lineage at a refinement that was not a choice of variant, and neither
    /// chose a variant after it. (One that chose a variant since may be after a variant the
    /// accepted value does not hold: an outer tag, or the next variant of the enum it mends.)
    pub(crate) fn superseded_by(&self, accepted: &Candidate) -> bool {
        for (at, (mine, theirs)) in self.lineage.iter().zip(&accepted.lineage).enumerate() {
            if mine != theirs {
                return mine.refinement == theirs.refinement
                    && !self.lineage[at..].iter().any(|b| b.variant)
                    && !accepted.lineage[at + 1..].iter().any(|b| b.variant);
            }
        }
        false
    }

    /// How far this candidate follows `other`'s lineage before they part: the candidates
    /// that part from an accepted value earliest (another outer variant) are tried first.
    pub(crate) fn shared_lineage(&self, other: &Candidate) -> usize {
        self.lineage
            .iter()
            .zip(&other.lineage)
            .take_while(|(a, b)| a == b)
            .count()
    }

    /// The candidate with the node at `path` replaced by `node`, now the most recent change.
    fn with(&self, path: &[usize], node: Sample) -> Option<Candidate> {
        let mut next = self.clone();
        *next.tree.at_mut(path)? = node;
        next.recent.retain(|p| !p.starts_with(path));
        next.recent.push(path.to_vec());
        next.suspect_rank = 0;
        Some(next)
    }

    /// Paths of the nodes of `kind` in the order they are likely refused: serde reads a value
    /// in document order, and what came before the node changed last was read and taken
    /// before it changed. So the node changed last and every node after it come first, in
    /// document order; then the nodes changed before it and what they hold, the latest
    /// first; then the rest in document order.
    fn suspects(&self, kind: Option<Kind>) -> Vec<Vec<usize>> {
        let all = self.tree.paths();
        let mut seen: std::collections::BTreeSet<&[usize]> = std::collections::BTreeSet::new();
        let mut changed: std::collections::BTreeSet<&[usize]> = std::collections::BTreeSet::new();
        let mut recent = self
            .recent
            .iter()
            .rev()
            .filter(|p| changed.insert(p.as_slice()));
        let latest = recent
            .next()
            .and_then(|p| all.iter().position(|q| q == p))
            .map_or(&all[..0], |at| all.get(at..).unwrap_or_default());
        let earlier = recent.flat_map(|p| all.iter().filter(move |q| q.starts_with(p)));
        let mut out: Vec<Vec<usize>> = Vec::new();
        for path in latest.iter().chain(earlier).chain(all.iter()) {
            if !seen.insert(path.as_slice()) {
                continue;
            }
            let fits = match (kind, self.tree.at(path)) {
                (Some(kind), Some(node)) => node.kind() == kind,
                (None, Some(_)) => true,
                (_, None) => false,
            };
            if fits {
                out.push(path.clone());
            }
        }
        out
    }
}

/// The longest str, byte string or sequence a refusal's length makes the search try: a
/// length named by a type (a fixed-size array, say) is small; a larger one is a guess.
const MAX_LENGTH_TRIED: usize = 4096;

/// The values handed first to a place read with `deserialize_any`: one of each kind.
pub(crate) fn probes() -> Vec<Sample> {
    vec![
        Sample::Nil,
        Sample::Bool(false),
        Sample::Int(0),
        Sample::Str(String::new()),
        Sample::Array(Vec::new()),
        Sample::Map(Vec::new()),
        Sample::F64(0.0),
        Sample::Bin(Vec::new()),
    ]
}

/// Values of one kind a validating `Deserialize` may accept where the smallest is refused:
/// small counts, common lengths, and the forms validated strings usually take.
pub(crate) fn alternatives(kind: Kind) -> Vec<Sample> {
    match kind {
        Kind::Int => [1, 2, 8, 16, 32, 64, 100, 255, 1000, 65535, -1]
            .into_iter()
            .map(Sample::Int)
            .collect(),
        Kind::Float => vec![Sample::F64(1.0), Sample::F64(0.5)],
        Kind::Str => [
            "a",
            "0",
            "1",
            "x",
            "hardpack",
            "00000000-0000-0000-0000-000000000000",
            "1970-01-01T00:00:00Z",
            "127.0.0.1",
            "http://localhost/",
            "a@b.c",
        ]
        .into_iter()
        .map(|s| Sample::Str(s.into()))
        .collect(),
        Kind::Bin => [1, 16, 20, 32, 64]
            .into_iter()
            .map(|n| Sample::Bin(vec![0; n]))
            .collect(),
        Kind::Bool => vec![Sample::Bool(true)],
        Kind::Array => vec![Sample::Array(vec![Sample::Int(0)])],
        Kind::Map => Vec::new(),
        Kind::Nil | Kind::Ext => Vec::new(),
    }
}

/// The candidates that may get past `message`, the refusal of `refused`, most promising
/// first.
pub(crate) fn refine(refused: &Candidate, message: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    if let Some(field) = quoted_after(message, "missing field ") {
        for path in refused.suspects(Some(Kind::Map)) {
            let Some(Sample::Map(entries)) = refused.tree.at(&path) else {
                continue;
            };
            if entries
                .iter()
                .any(|(k, _)| *k == Sample::Str(field.clone()))
            {
                continue;
            }
            let mut next = refused.clone();
            if let Some(Sample::Map(entries)) = next.tree.at_mut(&path) {
                entries.push((Sample::Str(field.clone()), Sample::Nil));
                let mut value = path.clone();
                value.push(2 * entries.len() - 1);
                next.recent.push(value);
                out.push(next);
            }
        }
        if out.is_empty() {
            // Every map has the field: what it holds is not what the type wants (a
            // hand-written impl that looks a value up says "missing" for a wrong kind too).
            for path in refused.suspects(Some(Kind::Map)) {
                let Some(Sample::Map(entries)) = refused.tree.at(&path) else {
                    continue;
                };
                let Some(at) = entries
                    .iter()
                    .position(|(k, _)| *k == Sample::Str(field.clone()))
                else {
                    continue;
                };
                let mut value = path.clone();
                value.push(2 * at + 1);
                for probe in probes().into_iter().skip(1) {
                    out.extend(refused.with(&value, probe));
                }
            }
        }
        if out.is_empty() {
            out.extend(refused.with(&[], Sample::Map(vec![(Sample::Str(field), Sample::Nil)])));
        }
        return out;
    }
    if let Some(unknown) = quoted_after(message, "unknown variant ") {
        let names = quoted_list(message.split_once("expected").map_or("", |(_, e)| e));
        for path in named_str(refused, &unknown) {
            for name in &names {
                out.extend(refused.with(&path, Sample::Str(name.clone())));
            }
            // The key of a map of one entry: an externally tagged variant with content. A
            // unit variant is its name alone.
            if let Some((last, parent)) = path.split_last() {
                if last % 2 == 0
                    && matches!(refused.tree.at(parent), Some(Sample::Map(e)) if e.len() == 1)
                {
                    for name in &names {
                        out.extend(refused.with(parent, Sample::Str(name.clone())));
                    }
                }
            }
        }
        for c in &mut out {
            c.names_variant = true;
        }
        return out;
    }
    if let Some(unknown) = quoted_after(message, "unknown field ") {
        // deny_unknown_fields: the field goes.
        return named_str(refused, &unknown)
            .iter()
            .filter_map(|path| without_entry(refused, path))
            .collect();
    }
    if let Some(field) = quoted_after(message, "duplicate field ") {
        // The later entries naming the field go.
        let mut named = named_str(refused, &field);
        named.sort();
        return named
            .iter()
            .skip(1)
            .filter_map(|path| without_entry(refused, path))
            .collect();
    }
    if message.contains("did not match any variant of untagged enum") {
        // It says nothing of what it wants: the node changed last gets one value of each
        // kind, each a guess at one of its variants.
        if let Some(path) = refused.recent.last() {
            for probe in probes() {
                out.extend(refused.with(path, probe));
            }
        }
        return out;
    }
    if let Some(wanted) = message.strip_prefix("invalid type: unit variant, expected ") {
        // A variant named alone where it has content: the name becomes the key of a map of
        // one entry, its content empty (what it holds, the next refusal says).
        let content = if wanted.starts_with("struct variant") {
            Sample::Map(Vec::new())
        } else if wanted.starts_with("tuple variant") {
            Sample::Array(Vec::new())
        } else {
            Sample::Nil
        };
        for path in refused.suspects(Some(Kind::Str)).into_iter().take(2) {
            let Some(name) = refused.tree.at(&path).cloned() else {
                continue;
            };
            if is_key(&refused.tree, &path) {
                continue;
            }
            out.extend(refused.with(&path, Sample::Map(vec![(name, content.clone())])));
        }
        return out;
    }
    let expected = message
        .split_once(", expected ")
        .map_or(message, |(_, e)| e)
        .to_string();
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let kind = unexpected_kind(rest);
        let wanted = for_expectation(&expected);
        // A struct is read from a map or a sequence: each form is explored, since the map
        // form leaves out what serde reads as absent (an `Option` field), which the sequence
        // form asks for.
        let forms = expected.starts_with("struct ");
        for (rank, path) in refused.suspects(kind).into_iter().take(4).enumerate() {
            for node in &wanted {
                out.extend(refused.with(&path, node.clone()).map(|mut c| {
                    c.names_variant |= forms;
                    c.suspect_rank = rank;
                    c
                }));
            }
        }
        return out;
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        let refused_len: Option<usize> = rest
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok());
        let lengths = numbers(&expected);
        for path in refused.suspects(None).into_iter().take(6) {
            let Some(node) = refused.tree.at(&path) else {
                continue;
            };
            let len = match node {
                Sample::Array(items) => items.len(),
                Sample::Map(entries) => entries.len(),
                Sample::Str(s) => s.len(),
                Sample::Bin(b) => b.len(),
                _ => continue,
            };
            // A sequence whose first item is a tag (an internally tagged variant read as
            // one): what is refused is the content after the tag.
            if let (Sample::Array(items), Some(n)) = (node, refused_len) {
                if let Some(tag @ Sample::Str(_)) = items.first() {
                    if n + 1 == len {
                        for n in &lengths {
                            let mut items = vec![tag.clone()];
                            items.resize((*n).min(MAX_LENGTH_TRIED) + 1, Sample::Nil);
                            out.extend(refused.with(&path, Sample::Array(items)));
                        }
                        continue;
                    }
                }
            }
            if refused_len.is_some_and(|n| n != len) {
                continue;
            }
            for n in &lengths {
                out.extend(refused.with(&path, resized(node, *n)));
            }
        }
        return out;
    }
    // invalid value, or a hand-written Deserialize's own words: the node changed last gets
    // the values the message names, then the usual alternatives of its kind.
    let Some(path) = refused.recent.last() else {
        return out;
    };
    let suspects: Vec<Vec<usize>> = match message.strip_prefix("invalid value: ") {
        Some(rest) => refused.suspects(unexpected_kind(rest)),
        None => refused
            .suspects(None)
            .into_iter()
            .filter(|p| p.starts_with(path))
            .collect(),
    };
    // Leaves only: a container's own alternatives come from the messages about it.
    for path in suspects
        .into_iter()
        .filter(|p| {
            !matches!(
                refused.tree.at(p),
                Some(Sample::Array(_) | Sample::Map(_)) | None
            )
        })
        .take(3)
    {
        let Some(node) = refused.tree.at(&path) else {
            continue;
        };
        for value in from_words(node.kind(), &expected) {
            out.extend(refused.with(&path, value));
        }
    }
    out
}

/// The candidates that hand `node`, a value of the type `message` names (`invalid type:
/// unit value, expected struct Node`), where the refused node may be.
pub(crate) fn substitute(refused: &Candidate, message: &str, node: &Sample) -> Vec<Candidate> {
    let kind = message
        .strip_prefix("invalid type: ")
        .and_then(unexpected_kind);
    refused
        .suspects(kind)
        .into_iter()
        .take(4)
        .filter_map(|path| refused.with(&path, node.clone()))
        .collect()
}

/// Whether the node at `path` is a map's key.
pub(crate) fn is_key(sample: &Sample, path: &[usize]) -> bool {
    match path.split_last() {
        Some((last, parent)) => last % 2 == 0 && matches!(sample.at(parent), Some(Sample::Map(_))),
        None => false,
    }
}

/// The candidate without the map entry whose key is at `key_path`.
fn without_entry(candidate: &Candidate, key_path: &[usize]) -> Option<Candidate> {
    let (entry, map) = key_path.split_last()?;
    let mut next = candidate.clone();
    let Some(Sample::Map(entries)) = next.tree.at_mut(map) else {
        return None;
    };
    if *entry / 2 >= entries.len() {
        return None;
    }
    entries.remove(*entry / 2);
    next.recent.retain(|p| !p.starts_with(map));
    next.recent.push(map.to_vec());
    Some(next)
}

/// Values of `kind` that the words of a refusal name: its numbers (as values or lengths) and
/// its quoted words.
pub(crate) fn from_words(kind: Kind, message: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for n in numbers(message) {
        out.push(match kind {
            Kind::Int | Kind::Nil => Sample::Int(n as i128),
            Kind::Float => Sample::F64(n as f64),
            Kind::Str => Sample::Str("a".repeat(n.min(MAX_LENGTH_TRIED))),
            Kind::Bin => Sample::Bin(vec![0; n.min(MAX_LENGTH_TRIED)]),
            Kind::Array => Sample::Array(vec![Sample::Int(0); n.min(MAX_LENGTH_TRIED)]),
            _ => continue,
        });
    }
    if kind == Kind::Str {
        out.extend(quoted_list(message).into_iter().map(Sample::Str));
    }
    out
}

/// A node like `node` of length `n`.
fn resized(node: &Sample, n: usize) -> Sample {
    let n = n.min(MAX_LENGTH_TRIED);
    match node {
        Sample::Array(_) => Sample::Array(vec![Sample::Nil; n]),
        Sample::Map(_) => Sample::Map(
            (0..n)
                .map(|i| (Sample::Str(format!("k{i}")), Sample::Nil))
                .collect(),
        ),
        Sample::Str(_) => Sample::Str("a".repeat(n)),
        _ => Sample::Bin(vec![0; n]),
    }
}

/// Paths of the str nodes equal to `text` (an identifier the type refused), or, when none is,
/// of every str node changed last.
fn named_str(candidate: &Candidate, text: &str) -> Vec<Vec<usize>> {
    let exact: Vec<Vec<usize>> = candidate
        .suspects(Some(Kind::Str))
        .into_iter()
        .filter(|p| matches!(candidate.tree.at(p), Some(Sample::Str(s)) if s == text))
        .collect();
    if exact.is_empty() {
        candidate
            .suspects(Some(Kind::Str))
            .into_iter()
            .take(1)
            .collect()
    } else {
        exact
    }
}

/// The type a refusal of a wrong kind of value names (`struct Point`, `enum Shape`,
/// `internally tagged enum Job`): what the node refused is read as. None where it names
/// no type of its own (`a sequence`, `u8`).
pub(crate) fn expected_type(message: &str) -> Option<&str> {
    let expected = message
        .strip_prefix("invalid type: ")?
        .split_once(", expected ")?
        .1;
    let named = [
        "struct ",
        "tuple struct ",
        "unit struct ",
        "enum ",
        "internally tagged enum ",
        "adjacently tagged enum ",
    ];
    named
        .iter()
        .any(|prefix| expected.starts_with(prefix))
        .then_some(expected)
}

/// The `quoted` word right after `prefix` in `message`.
pub(crate) fn quoted_after(message: &str, prefix: &str) -> Option<String> {
    let rest = message.split_once(prefix)?.1.strip_prefix('`')?;
    Some(rest.split_once('`')?.0.to_string())
}

/// Every `quoted` word of `text`, in order.
pub(crate) fn quoted_list(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, w)| w.to_string())
        .collect()
}

/// The numbers of `text`, in order, each once.
fn numbers(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    // Whole words only: the digits of a name (`T3E1V1`, `u8`, `Sha256`) are no count.
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if !word.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(n) = word.parse::<usize>() {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// The kind serde names in an "invalid type" message (`unit value`, `string "x"`, ...).
fn unexpected_kind(what: &str) -> Option<Kind> {
    let what = what.trim_start();
    Some(
        if what.starts_with("unit value") || what.starts_with("Option value") {
            Kind::Nil
        } else if what.starts_with("boolean") {
            Kind::Bool
        } else if what.starts_with("integer") {
            Kind::Int
        } else if what.starts_with("floating point") {
            Kind::Float
        } else if what.starts_with("string") || what.starts_with("character") {
            Kind::Str
        } else if what.starts_with("byte array") {
            Kind::Bin
        } else if what.starts_with("sequence") {
            Kind::Array
        } else if what.starts_with("map") {
            Kind::Map
        } else {
            return None;
        },
    )
}

/// Values of the kind an expectation names (`a string`, `struct Point`, `u32`, `a sequence`,
/// `internally tagged enum Message`, `variant identifier`), the likeliest first.
fn for_expectation(expected: &str) -> Vec<Sample> {
    let e = expected.to_ascii_lowercase();
    let has = |w: &str| e.contains(w);
    let unknown = || Sample::Str(UNKNOWN_NAME.into());
    if has("identifier") {
        vec![unknown(), Sample::Int(0)]
    } else if e == "string or map" {
        // An externally tagged enum read from serde's buffer (an internally tagged
        // variant's content): its unit variants are strs, the others maps of one key.
        vec![unknown(), Sample::Map(vec![(unknown(), Sample::Nil)])]
    } else if has("tagged enum") || has("struct variant") || has("map") {
        vec![Sample::Map(Vec::new())]
    } else if has("tuple variant") {
        vec![Sample::Array(Vec::new())]
    } else if has("enum") {
        vec![unknown(), Sample::Map(vec![(unknown(), Sample::Nil)])]
    } else if has("byte") {
        vec![Sample::Bin(Vec::new())]
    } else if has("struct") {
        vec![Sample::Map(Vec::new()), Sample::Array(Vec::new())]
    } else if has("sequence") || has("tuple") || has("array") || has("set") || has("vec") {
        let n = numbers(&e)
            .first()
            .copied()
            .unwrap_or(0)
            .min(MAX_LENGTH_TRIED);
        vec![Sample::Array(vec![Sample::Nil; n])]
    } else if has("bool") {
        vec![Sample::Bool(false)]
    } else if has("char") {
        vec![Sample::Str("a".into())]
    } else if has("str") {
        vec![Sample::Str(String::new()), Sample::Str("a".into())]
    } else if has("f32") || has("f64") || has("float") {
        vec![Sample::F64(0.0)]
    } else if has("i8")
        || has("i16")
        || has("i32")
        || has("i64")
        || has("i128")
        || has("u8")
        || has("u16")
        || has("u32")
        || has("u64")
        || has("u128")
        || has("size")
        || has("integer")
        || has("number")
    {
        vec![Sample::Int(0)]
    } else if has("unit") || has("option") || has("null") {
        vec![Sample::Nil]
    } else {
        probes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(refinement: u32, index: u32, variant: bool) -> Branch {
        Branch {
            refinement,
            index,
            variant,
        }
    }

    fn with_lineage(lineage: Vec<Branch>) -> Candidate {
        let mut c = Candidate::new(Sample::Nil);
        c.lineage = lineage;
        c
    }

    #[test]
    fn a_refusal_of_a_wrong_kind_names_the_type_only_where_serde_names_one() {
        let named = [
            (
                "invalid type: unit value, expected struct Tree",
                "struct Tree",
            ),
            (
                "invalid type: integer `0`, expected internally tagged enum Job",
                "internally tagged enum Job",
            ),
            (
                "invalid type: unit value, expected tuple struct Pair",
                "tuple struct Pair",
            ),
            ("invalid type: map, expected enum Target", "enum Target"),
        ];
        for (message, expected) in named {
            assert_eq!(expected_type(message), Some(expected), "{message}");
        }
        for message in [
            "invalid type: unit value, expected a sequence",
            "invalid type: unit value, expected u8",
            "invalid type: unit value, expected a tuple of size 2",
            "missing field `struct Tree`",
            "not an id, expected struct Tree",
        ] {
            assert_eq!(expected_type(message), None, "{message}");
        }
    }

    #[test]
    fn a_probe_replaces_one_word_or_one_inner_node_each() {
        let s = |text: &str| Sample::Str(text.into());
        let value = Sample::Map(vec![
            (s("t"), s("Run")),
            (s("list"), Sample::Array(vec![Sample::Int(1), s("x")])),
        ]);
        let probes = Candidate::new(value).probes();
        let trees: Vec<Sample> = probes.iter().map(|c| c.tree.clone()).collect();
        let unknown = || s(UNKNOWN_NAME);
        let list = || Sample::Array(vec![Sample::Int(1), s("x")]);
        let expected = vec![
            Sample::Map(vec![(unknown(), s("Run")), (s("list"), list())]),
            Sample::Map(vec![(s("t"), unknown()), (s("list"), list())]),
            Sample::Map(vec![(s("t"), s("Run")), (unknown(), list())]),
            Sample::Map(vec![(s("t"), s("Run")), (s("list"), Sample::Nil)]),
            Sample::Map(vec![
                (s("t"), s("Run")),
                (s("list"), Sample::Array(vec![Sample::Int(1), unknown()])),
            ]),
        ];
        assert_eq!(trees, expected);
        // Each is a question of its own, and suspects only the node it replaced.
        for probe in &probes {
            assert!(probe.probe && probe.names_variant && !probe.from_sample);
            assert_eq!(probe.recent.len(), 1);
            assert!(probe.tree.at(&probe.recent[0]).is_some());
        }
    }

    #[test]
    fn lineages_share_what_they_have_in_common_before_they_part() {
        let a = with_lineage(vec![
            branch(0, 0, true),
            branch(1, 0, false),
            branch(2, 0, false),
        ]);
        let b = with_lineage(vec![
            branch(0, 0, true),
            branch(1, 0, false),
            branch(2, 1, false),
        ]);
        assert_eq!(a.shared_lineage(&b), 2);
        assert_eq!(a.shared_lineage(&a), 3);
    }

    #[test]
    fn a_guess_is_superseded_only_when_no_variant_was_chosen_after_the_parting() {
        // Parted at refinement 1; the accepted value's branch there named a variant, nothing
        // after it: the guess mended the same thing.
        let accepted = with_lineage(vec![branch(0, 0, true), branch(1, 0, true)]);
        let guess = with_lineage(vec![branch(0, 0, true), branch(1, 1, false)]);
        assert!(guess.superseded_by(&accepted));
        // The accepted value chose a variant after the parting: the guess may be after another.
        let later = with_lineage(vec![
            branch(0, 0, true),
            branch(1, 0, false),
            branch(2, 1, true),
        ]);
        assert!(!guess.superseded_by(&later));
        // The guess chose a variant after the parting itself.
        let chose = with_lineage(vec![
            branch(0, 0, true),
            branch(1, 1, false),
            branch(3, 0, true),
        ]);
        assert!(!chose.superseded_by(&accepted));
    }

    #[test]
    fn an_untagged_refusal_gets_every_kind_at_the_node_changed_last() {
        let mut c = Candidate::new(Sample::Map(vec![(Sample::Str("c".into()), Sample::Nil)]));
        c.recent.push(vec![1]);
        let next = refine(
            &c,
            "data did not match any variant of untagged enum Content",
        );
        let tried: Vec<&Sample> = next
            .iter()
            .map(|c| match &c.tree {
                Sample::Map(entries) => &entries[0].1,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(tried.contains(&&Sample::Bool(false)), "{tried:?}");
        assert!(tried.contains(&&Sample::Map(Vec::new())), "{tried:?}");
        assert_eq!(tried.len(), 8, "{tried:?}");
    }

    #[test]
    fn the_digits_of_a_name_are_no_count() {
        assert_eq!(
            numbers("tuple variant T3E1::T3E1V1 with 2 elements"),
            [2],
            "a length in a message naming a type with digits"
        );
        assert_eq!(numbers("a string of 16-64 bytes, not u8"), [16, 64]);
        let c = Candidate::new(Sample::Array(Vec::new()));
        let next = refine(
            &c,
            "invalid length 0, expected tuple variant T3E1::T3E1V1 with 2 elements",
        );
        let lengths: Vec<usize> = next
            .iter()
            .map(|c| match &c.tree {
                Sample::Array(items) => items.len(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(lengths, [2]);
    }

    #[test]
    fn a_missing_field_is_added_to_the_map_changed_last() {
        let c = Candidate::new(Sample::Map(Vec::new()));
        let next = refine(&c, "missing field `type`");
        assert_eq!(
            next[0].tree,
            Sample::Map(vec![(Sample::Str("type".into()), Sample::Nil)])
        );
        let typed = refine(
            &next[0],
            "invalid type: unit value, expected variant identifier",
        );
        assert_eq!(
            typed[0].tree,
            Sample::Map(vec![(
                Sample::Str("type".into()),
                Sample::Str(UNKNOWN_NAME.into())
            )])
        );
        let named = refine(
            &typed[0],
            "unknown variant `hardpack-check-unknown`, expected one of `Ping`, `Data`",
        );
        let names: Vec<String> = named.iter().map(|c| c.tree.to_string()).collect();
        assert_eq!(names, [r#"{"type": "Ping"}"#, r#"{"type": "Data"}"#]);
    }

    #[test]
    fn an_unknown_or_duplicate_field_goes() {
        let both = Candidate::new(Sample::Map(vec![
            (Sample::Str("a".into()), Sample::Nil),
            (Sample::Str("b".into()), Sample::Nil),
            (Sample::Str("a".into()), Sample::Int(1)),
        ]));
        let unknown = refine(&both, "unknown field `b`, expected `a`");
        assert_eq!(unknown[0].tree.to_string(), "{\"a\": nil, \"a\": 1}");
        let duplicate = refine(&unknown[0], "duplicate field `a`");
        assert_eq!(duplicate[0].tree.to_string(), "{\"a\": nil}");
    }

    #[test]
    fn a_length_named_by_a_refusal_is_tried() {
        let c = Candidate::new(Sample::Bin(Vec::new()));
        let next = refine(&c, "invalid length 0, expected 32 bytes");
        assert_eq!(next[0].tree, Sample::Bin(vec![0; 32]));
        let custom = Candidate::new(Sample::Str(String::new()));
        let words = refine(&custom, "unsupported codec, expected one of `gzip`, `zstd`");
        let values: Vec<String> = words.iter().map(|c| c.tree.to_string()).collect();
        assert_eq!(values, [r#""gzip""#, r#""zstd""#]);
    }

    #[test]
    fn a_sequence_after_a_tag_is_resized_behind_it() {
        // An internally tagged variant read as a sequence: the length refused is the
        // content's, after the tag.
        let c = Candidate::new(Sample::Array(vec![Sample::Str("Run".into())]));
        let next = refine(
            &c,
            "invalid length 0, expected struct variant Job::Run with 2 elements",
        );
        let values: Vec<String> = next.iter().map(|c| c.tree.to_string()).collect();
        assert_eq!(values, [r#"["Run", nil, nil]"#]);
        // A sequence of that length that is not after a tag is not taken for one.
        let plain = Candidate::new(Sample::Array(vec![Sample::Int(1)]));
        assert!(refine(&plain, "invalid length 0, expected 2 elements").is_empty());
    }

    #[test]
    fn an_enum_read_from_the_buffer_is_handed_a_name_and_a_map_of_one() {
        let c = Candidate::new(Sample::Int(0));
        let next = refine(&c, "invalid type: integer `0`, expected string or map");
        let values: Vec<String> = next.iter().map(|c| c.tree.to_string()).collect();
        assert_eq!(
            values,
            [
                format!("\"{UNKNOWN_NAME}\""),
                format!("{{\"{UNKNOWN_NAME}\": nil}}")
            ]
        );
    }

    #[test]
    fn an_unknown_variant_keying_a_map_of_one_is_named_with_its_content_and_alone() {
        let c = Candidate::new(Sample::Map(vec![(
            Sample::Str(UNKNOWN_NAME.into()),
            Sample::Str("id-123456".into()),
        )]));
        let message = format!("unknown variant `{UNKNOWN_NAME}`, expected `Everyone` or `Member`");
        let values: Vec<String> = refine(&c, &message)
            .iter()
            .map(|c| c.tree.to_string())
            .collect();
        assert_eq!(
            values,
            [
                "{\"Everyone\": \"id-123456\"}",
                "{\"Member\": \"id-123456\"}",
                "\"Everyone\"",
                "\"Member\""
            ]
        );
    }

    #[test]
    fn a_variant_named_alone_where_it_has_content_keys_a_map_of_its_content() {
        // `["T1", ["V", false]]`: the enum read from serde's buffer got a unit variant.
        let mut c = Candidate::new(Sample::Array(vec![
            Sample::Str("T1".into()),
            Sample::Array(vec![Sample::Str("V".into()), Sample::Bool(false)]),
        ]));
        c.recent = vec![vec![1, 0]];
        let forms = [
            ("struct variant", "[\"T1\", [{\"V\": {}}, false]]"),
            ("tuple variant", "[\"T1\", [{\"V\": []}, false]]"),
            ("newtype variant", "[\"T1\", [{\"V\": nil}, false]]"),
        ];
        for (wanted, value) in forms {
            let message = format!("invalid type: unit variant, expected {wanted}");
            let values: Vec<String> = refine(&c, &message)
                .iter()
                .map(|c| c.tree.to_string())
                .collect();
            // The str changed last first; the outer tag is the other suspect.
            assert_eq!(values.first().map(String::as_str), Some(value), "{wanted}");
            assert_eq!(values.len(), 2, "{wanted}: {values:?}");
        }
    }

    #[test]
    fn a_struct_wanted_is_handed_as_a_map_and_as_a_sequence_each_a_variant_of_its_own() {
        let c = Candidate::new(Sample::Nil);
        let next = refine(&c, "invalid type: unit value, expected struct Node");
        let values: Vec<(String, bool)> = next
            .iter()
            .map(|c| (c.tree.to_string(), c.names_variant))
            .collect();
        assert_eq!(values, [("{}".into(), true), ("[]".into(), true)]);
        // Any other kind wanted is one guess at one value.
        let next = refine(&c, "invalid type: unit value, expected a string");
        assert!(next.iter().all(|c| !c.names_variant));
    }

    #[test]
    fn a_refusal_is_looked_for_at_the_node_changed_last_and_after_it_in_document_order() {
        // serde read what comes before the node changed last, and took it, before the change.
        let mut c = Candidate::new(Sample::Array(vec![
            Sample::Nil,
            Sample::Array(vec![Sample::Nil, Sample::Nil]),
            Sample::Nil,
        ]));
        c.recent = vec![vec![], vec![1]];
        assert_eq!(
            c.suspects(Some(Kind::Nil)),
            vec![vec![1, 0], vec![1, 1], vec![2], vec![0]]
        );
        // Nothing changed yet: the whole value, in document order.
        c.recent = vec![vec![]];
        assert_eq!(
            c.suspects(Some(Kind::Nil)),
            vec![vec![0], vec![1, 0], vec![1, 1], vec![2]]
        );
    }

    #[test]
    fn each_guess_at_a_refused_node_says_how_likely_its_node_was() {
        let mut refused = Candidate::new(Sample::Array(vec![Sample::Nil, Sample::Nil]));
        refused.suspect_rank = 3;
        let refined = refine(&refused, "invalid type: unit value, expected a boolean");
        let ranks: Vec<(Sample, usize)> = refined
            .iter()
            .map(|c| (c.tree.clone(), c.suspect_rank))
            .collect();
        assert_eq!(
            ranks,
            vec![
                (Sample::Array(vec![Sample::Bool(false), Sample::Nil]), 0),
                (Sample::Array(vec![Sample::Nil, Sample::Bool(false)]), 1),
            ]
        );
        // Any other change is no guess among nodes: it starts again at 0.
        let named = refine(&refused, "missing field `a`");
        assert!(named.iter().all(|c| c.suspect_rank == 0));
    }

    #[test]
    fn a_refusal_in_its_parents_words_is_a_repeat_unless_it_could_be_about_fewer_nodes() {
        let wants_bool = "invalid type: unit value, expected a boolean";
        let mut c = Candidate::new(Sample::Array(vec![Sample::Nil; 3]));
        assert_eq!(c.suspected(wants_bool), Some(3));
        assert!(!c.repeats_refusal(wants_bool));
        c.parent_refusal = Some((wants_bool.into(), 3));
        assert!(c.repeats_refusal(wants_bool));
        assert!(!c.repeats_refusal("invalid type: unit value, expected u32"));
        // One of the three nils answered: the same words are about another.
        c.tree = Sample::Array(vec![Sample::Bool(false), Sample::Nil, Sample::Nil]);
        assert!(!c.repeats_refusal(wants_bool));
        // Unless it was not the likeliest nil changed: the one before it is refused alike.
        c.suspect_rank = 1;
        assert!(c.repeats_refusal(wants_bool));
        c.suspect_rank = 0;
        // A nil made a sequence of nils: more of them, no answer.
        c.tree = Sample::Array(vec![
            Sample::Array(vec![Sample::Nil; 2]),
            Sample::Nil,
            Sample::Nil,
        ]);
        assert!(c.repeats_refusal(wants_bool));
        // Words that name no kind of value count nothing: the same words are a repeat.
        c.parent_refusal = Some(("missing field `a`".into(), 3));
        assert_eq!(c.suspected("missing field `a`"), None);
        assert!(c.repeats_refusal("missing field `a`"));
    }

    #[test]
    fn a_map_wanted_is_handed_an_empty_map_alone() {
        // serde's `BTreeMap` and `HashMap` say "a map": the smallest map answers, not one
        // value of every kind.
        let c = Candidate::new(Sample::Int(0));
        let next = refine(&c, "invalid type: integer `0`, expected a map");
        let values: Vec<String> = next.iter().map(|c| c.tree.to_string()).collect();
        assert_eq!(values, ["{}"]);
    }

    #[test]
    fn a_probe_changes_the_candidate_and_a_str_already_unknown_is_not_probed_again() {
        let unknown = || Sample::Str(UNKNOWN_NAME.into());
        let c = Candidate::new(Sample::Map(vec![
            (Sample::Str("kind".into()), unknown()),
            (
                Sample::Str("items".into()),
                Sample::Array(vec![Sample::Int(1)]),
            ),
        ]));
        let probes: Vec<Sample> = c.probes().into_iter().map(|p| p.tree).collect();
        assert_eq!(
            probes,
            vec![
                Sample::Map(vec![
                    (unknown(), unknown()),
                    (
                        Sample::Str("items".into()),
                        Sample::Array(vec![Sample::Int(1)])
                    ),
                ]),
                Sample::Map(vec![
                    (Sample::Str("kind".into()), unknown()),
                    (unknown(), Sample::Array(vec![Sample::Int(1)])),
                ]),
                Sample::Map(vec![
                    (Sample::Str("kind".into()), unknown()),
                    (Sample::Str("items".into()), Sample::Nil),
                ]),
            ]
        );
    }
}
