//! `generic()` is the generic part of the fuzz corpus that `scripts/gen-corpus` commits: the
//! same files, byte for byte, and no other.

use std::collections::BTreeMap;
use std::path::Path;

const FAMILIES: [&str; 4] = ["bomb-", "huge-", "amp-", "bad-"];

#[test]
fn generic_payloads_are_the_committed_seeds_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/decode");
    let committed: BTreeMap<String, Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| FAMILIES.iter().any(|f| name.starts_with(f)))
        .map(|(name, path)| (name, std::fs::read(path).unwrap()))
        .collect();
    let generated: BTreeMap<String, Vec<u8>> = hardpack_check::generic()
        .into_iter()
        .map(|p| (p.id, p.bytes.into_vec()))
        .collect();
    assert_eq!(
        generated.keys().collect::<Vec<_>>(),
        committed.keys().collect::<Vec<_>>()
    );
    for (id, bytes) in &generated {
        assert!(
            bytes == &committed[id],
            "{id} differs from corpus/decode/{id}"
        );
    }
}

#[test]
fn ids_are_unique_and_every_payload_says_what_it_is() {
    let payloads = hardpack_check::generic();
    let mut ids: Vec<_> = payloads.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), payloads.len());
    assert!(payloads.iter().all(|p| !p.what.is_empty()));
    // The same list every run: a report names a payload by its index.
    assert_eq!(hardpack_check::generic(), payloads);
}

/// The nesting depth of a bomb, from the number its id names (`bomb-arrays-129-truncated`:
/// 129; a `mixed` bomb nests an array and a map a level, half as many times each).
fn depth_in(id: &str) -> Option<usize> {
    let named: usize = id.split('-').find_map(|part| part.parse().ok())?;
    Some(if id.contains("-mixed-") {
        named / 2 * 2
    } else {
        named
    })
}

#[test]
fn hardpack_refuses_what_is_past_its_limits_and_accepts_the_rest() {
    for p in hardpack_check::generic() {
        let verdict = hardpack::decode(&p.bytes);
        let refused = if p.id.starts_with("huge-") || p.id.starts_with("bad-") {
            true
        } else if p.id.starts_with("bomb-") {
            p.id.ends_with("-truncated")
                || p.id.ends_with("-unterminated")
                || depth_in(&p.id).is_some_and(|depth| depth > 128)
        } else {
            false
        };
        assert_eq!(verdict.is_err(), refused, "{p:?}: {verdict:?}");
    }
}
