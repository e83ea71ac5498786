//! A type whose own `Deserialize` never ends takes down whatever runs it. The check traces
//! the type in a child process first, so the test survives to say so.

use hardpack_check::{check, CountingAlloc};
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Read from serde's buffer, `Some` is answered for any value but nil without consuming it:
/// `Chain` reads itself forever.
#[derive(Debug, Deserialize, Serialize)]
struct Chain(Option<Box<Chain>>);

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Step {
    Plain { n: u8 },
    Chained { next: Chain },
}

#[test]
fn a_document_that_makes_the_type_read_itself_forever_is_found() {
    // A map where `next` holds nil: serde's buffer answers `Some` for it, forever. No limit
    // of the decoder's can stop it; the check names the payload.
    let report = check::<Step>().run();
    let overflowed: Vec<String> = report
        .broken()
        .iter()
        .filter(|(_, why)| why.starts_with("overflowed"))
        .map(|(row, _)| row.id.clone())
        .collect();
    assert!(
        // The sample of `Chained`, whichever number the search gave it.
        overflowed
            .iter()
            .any(|id| id.starts_with("Step@") && id.contains(".next.")),
        "{}",
        report.text()
    );
}

#[derive(Debug, Deserialize, Serialize)]
struct Holder {
    name: String,
    chain: Chain,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Inner {
    Empty,
    Held { holder: Holder },
}

/// The trace hands the adjacently tagged content whole, through serde's buffer, to the
/// internally tagged enum inside it, which buffers again.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Link {
    Plain,
    Wrapped((Inner, bool)),
}

#[test]
fn a_type_that_reads_itself_without_end_is_reported_not_a_crash() {
    let report = check::<Link>().run();
    assert!(!report.is_hardened());
    let text = report.text();
    assert!(
        text.contains("tracing its Deserialize killed the process"),
        "{text}"
    );
    assert!(text.contains("its stack overflowed"), "{text}");
    // The generic payloads still ran, each in a child.
    assert!(!report.rows.is_empty(), "{text}");
}
