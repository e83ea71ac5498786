//! The kit's verdict, proven on generated types whose truth comes from the generator.
//!
//! `build.rs` (with `gen.rs`) writes a few hundred serde types from a seed, planting
//! validating leaves (a hand-written `Deserialize` or a `deserialize_with` that accepts one
//! string only the generator knows), opaque leaves (`serde_json::Value`, `IgnoredAny`) and
//! untagged enums at random places, and writes beside each type what it planted where, the
//! samples that hold each variant and each planted item, and which sample holds what. The
//! four oracles here compare the kit's ledger with that truth; none asks the kit what the
//! answer should be.
//!
//! - (a) no samples: the type is hardened exactly when nothing was planted, and every
//!   planted item is named by an open line (its own place, or a variant holding it);
//! - (b) every sample: hardened, every line closed;
//! - (c) a random subset of the samples: hardened exactly when the subset holds every
//!   planted item; each item it does not hold is named by an open line, each it holds is not
//!   open, and every open line lies in the region of an item it does not hold;
//! - (d) a decoder that refuses every document holding one chosen variant: that variant is
//!   open, and every open line lies inside it.
//!
//! A region is what a planted item makes unseeable: the places inside the innermost option,
//! sequence element, map entry or variant that holds it (the whole type when none does).
//! Inside serde's buffering (an internally or adjacently tagged variant's content, an untagged
//! enum, a struct with a flattened field) no place has a key of its own: there the kit's
//! finest name is the tagged variant or the untagged enum, and that is what the generator
//! expects it to name.

use std::collections::BTreeSet;

use hardpack_check::{check, Report};
use serde::{Deserialize, Serialize};

/// What the generator planted in a type.
#[derive(Debug)]
pub struct Planted {
    /// The validating items planted before it where the trace reads it (in document order,
    /// each the first in a region holding it): the trace cannot get past any of them to see
    /// this one.
    pub hidden_by: &'static [usize],
    /// `validating`, `opaque` or `untagged`.
    pub what: &'static str,
    /// The keys any of which names it: the variants holding it, then its own place.
    pub names: &'static [&'static str],
    /// The keys its region holds.
    pub region: &'static [&'static str],
}

/// A variant the fourth oracle's decoder refuses.
#[derive(Debug)]
pub struct RefusedVariant {
    /// Its name, as the wire writes it.
    pub name: &'static str,
    /// Its key in the ledger.
    pub key: &'static str,
    /// The keys inside it.
    pub region: &'static [&'static str],
}

/// The truth of one generated type.
#[derive(Debug)]
pub struct Truth {
    /// The type's index in the generated set.
    pub index: usize,
    /// What was planted.
    pub planted: &'static [Planted],
    /// For each sample, the planted items it holds.
    pub holds: &'static [&'static [usize]],
    /// The samples the third oracle gives.
    pub subset: &'static [usize],
    /// The variant the fourth oracle's decoder refuses.
    pub refused_variant: Option<RefusedVariant>,
}

/// The seed, for a failure message that can be replayed.
fn replay(seed: u64, truth: &Truth) -> String {
    format!(
        "type {} of seed {seed}: replay with HARDPACK_PROOF_SEED={seed} cargo test -p \
         hardpack-check-proof t{:03}",
        truth.index, truth.index
    )
}

fn open_lines(report: &Report) -> BTreeSet<String> {
    report
        .ledger
        .open()
        .iter()
        .map(|l| l.place.clone())
        .collect()
}

/// The items of `planted` not in `covered`, each named by an open line, and every open line
/// inside one of their regions (or in `extra`).
fn assert_open_exactly(
    report: &Report,
    truth: &Truth,
    uncovered: &[&Planted],
    extra: &[&str],
    context: &str,
) {
    let open = open_lines(report);
    let uncovered_index = |item: &Planted| truth.planted.iter().position(|p| std::ptr::eq(p, item));
    let still_open: BTreeSet<usize> = uncovered
        .iter()
        .filter_map(|p| uncovered_index(p))
        .collect();
    for item in uncovered {
        // Behind an item left uncovered, nothing of it can be seen: that one is named.
        if item.hidden_by.iter().any(|h| still_open.contains(h)) {
            continue;
        }
        assert!(
            item.names.iter().any(|n| open.contains(*n)),
            "{context}: the {} item named by one of {:?} is not open; open: {open:?}\n{}",
            item.what,
            item.names,
            report.text()
        );
    }
    let allowed: BTreeSet<&str> = uncovered
        .iter()
        .flat_map(|p| p.region.iter().chain(p.names).copied())
        .chain(extra.iter().copied())
        .collect();
    let stray: Vec<&String> = open
        .iter()
        .filter(|o| !allowed.contains(o.as_str()))
        .collect();
    assert!(
        stray.is_empty(),
        "{context}: open places no uncovered planted item explains: {stray:?}; planted: {:?}\n{}",
        truth.planted,
        report.text()
    );
}

/// (a) No samples: hardened exactly when nothing was planted; each planted item named.
pub fn no_samples<T: for<'de> Deserialize<'de> + 'static>(seed: u64, truth: &Truth) {
    let context = replay(seed, truth);
    let report = check::<T>().run();
    assert!(
        report.broken().is_empty(),
        "{context}: hardpack broke\n{}",
        report.text()
    );
    assert_eq!(
        report.is_hardened(),
        truth.planted.is_empty(),
        "{context}: planted {:?}\n{}",
        truth.planted,
        report.text()
    );
    let all: Vec<&Planted> = truth.planted.iter().collect();
    assert_open_exactly(&report, truth, &all, &[], &context);
}

fn with_samples<T>(
    samples: &[T],
    chosen: impl Fn(usize) -> bool,
) -> hardpack_check::Check<'static, T>
where
    T: for<'de> Deserialize<'de> + Serialize + 'static,
{
    let mut check = check::<T>();
    for (i, sample) in samples.iter().enumerate() {
        if chosen(i) {
            check = check.sample(sample);
        }
    }
    check
}

/// (b) Every sample: hardened, every line closed.
pub fn every_sample<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> Deserialize<'de> + Serialize + 'static,
{
    let context = replay(seed, truth);
    let report = with_samples(&samples, |_| true).run();
    assert!(
        report.is_hardened(),
        "{context}: samples hold every variant and planted item\n{}",
        report.text()
    );
}

/// (c) A subset of the samples: exactly what it does not hold is open.
pub fn some_samples<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> Deserialize<'de> + Serialize + 'static,
{
    let context = replay(seed, truth);
    let report = with_samples(&samples, |i| truth.subset.contains(&i)).run();
    let held: BTreeSet<usize> = truth
        .subset
        .iter()
        .flat_map(|s| truth.holds[*s].iter().copied())
        .collect();
    let uncovered: Vec<&Planted> = truth
        .planted
        .iter()
        .enumerate()
        .filter(|(i, _)| !held.contains(i))
        .map(|(_, p)| p)
        .collect();
    assert_eq!(
        report.is_hardened(),
        uncovered.is_empty(),
        "{context}: samples {:?} leave {uncovered:?}\n{}",
        truth.subset,
        report.text()
    );
    assert_open_exactly(&report, truth, &uncovered, &[], &context);
    let open = open_lines(&report);
    for (i, item) in truth.planted.iter().enumerate() {
        if held.contains(&i) {
            let own = item.names.last().copied().unwrap_or_default();
            assert!(
                !open.contains(own),
                "{context}: {own} is held by a sample given, yet open\n{}",
                report.text()
            );
        }
    }
}

/// (d) A decoder refusing every document holding one variant: only it is open.
pub fn refused_variant<T>(seed: u64, truth: &Truth, samples: Vec<T>)
where
    T: for<'de> Deserialize<'de> + Serialize + 'static,
{
    let context = replay(seed, truth);
    let Some(variant) = &truth.refused_variant else {
        return;
    };
    // The variant's name as hardpack writes it: the shortest string form.
    let name = variant.name.as_bytes();
    let mut needle = vec![0xa0 | name.len() as u8];
    if name.len() > 31 {
        needle = vec![0xd9, name.len() as u8];
    }
    needle.extend_from_slice(name);
    let report = with_samples(&samples, |_| true)
        .decoder("hardpack refusing one variant", move |bytes| {
            // What the document holds, not how it spells it: a document may write the
            // variant's name in a wider string form than hardpack's shortest, which a search
            // of its bytes would miss. Decoded and written again, the name has one form.
            let value = hardpack::from_slice::<T>(bytes).map_err(|e| e.to_string())?;
            let written = hardpack::to_vec(&value).map_err(|e| e.to_string())?;
            // memchr's search is compiled optimised; this crate is not (see its profile).
            if memchr::memmem::find(&written, &needle).is_some() {
                return Err("that variant is refused".to_string());
            }
            Ok(())
        })
        .run();
    let open = open_lines(&report);
    let closed_by = report
        .ledger
        .lines
        .iter()
        .find(|line| line.place == variant.key)
        .map(|line| {
            format!(
                "built by {:?}, reached by {:?}",
                line.built_by, line.reached_by
            )
        });
    assert!(
        open.contains(variant.key),
        "{context}: the refused variant {} is not open ({closed_by:?}); open: {open:?}\n{}",
        variant.key,
        report.text()
    );
    let stray: Vec<&String> = open
        .iter()
        .filter(|o| o.as_str() != variant.key && !variant.region.contains(&o.as_str()))
        .collect();
    assert!(
        stray.is_empty(),
        "{context}: open outside the refused variant {}: {stray:?}\n{}",
        variant.key,
        report.text()
    );
}
