//! The service types of every serde shape, checked against hardpack and rmp-serde: hardpack
//! holds on each (but for the upload chunk's own allocation bug, which the check finds under
//! both decoders); rmp-serde's recursion is found where a type nests or ignores a nesting.
//! Each test prints its report and one `table:` line (`docs/harden-your-types.md`).

use hardpack_check::{check, Outcome, Report};

mod common;
use common::table;
use hardpack_check_example::{AccountId, AuditRecord, Chunk, ClientMessage, Job, LogLine};

hardpack_check::hardened_tests!(
    client_message_is_hardened: ClientMessage,
    job_is_hardened: Job,
    log_line_is_hardened: LogLine<'static>,
);

/// The stack on which rmp-serde's recursion (to its own limit of 1024 levels) overflows.
const RMP_SERDE_STACK: usize = if cfg!(debug_assertions) {
    2 << 20
} else {
    64 << 10
};

fn sharded() -> AccountId {
    AccountId::Sharded {
        shard: 3,
        local: 12,
    }
}

fn audit_record() -> AuditRecord {
    AuditRecord {
        actor: sharded(),
        action: "delete".into(),
        attributes: [("ip".to_string(), hardpack::Value::from("10.0.0.1"))].into(),
    }
}

#[test]
fn client_message_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<ClientMessage>().round_trip().run();
    table(&report, started);
    report.assert_hardened();
}

#[test]
fn client_message_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<ClientMessage>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<ClientMessage>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    assert!(report.untested().is_none(), "{}", report.text());
}

#[test]
fn job_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<Job>().run();
    table(&report, started);
    report.assert_hardened();
}

/// What the round trip finds: an adjacently tagged enum written in rmp-serde's compact form
/// (structs as arrays) does not read back. serde reads a struct variant's content there
/// from a map only, and a unit variant is written as a one-element array the enum refuses.
/// rmp-serde's `to_vec` writes the same bytes and fails the same way.
#[test]
fn job_does_not_round_trip_in_the_compact_form() {
    let report = check::<Job>().round_trip().run();
    eprintln!("{}", report.text());
    let broken = report.broken();
    assert!(!broken.is_empty());
    assert!(
        broken.iter().all(
            |(row, _)| matches!(&row.outcome, Outcome::Panicked(m) if m.starts_with("round trip"))
        ),
        "{}",
        report.text()
    );
    let resize = Job::Resize {
        width: 1,
        height: 2,
    };
    let compact = rmp_serde::to_vec(&resize).unwrap();
    assert!(rmp_serde::from_slice::<Job>(&compact).is_err());
    let named = hardpack::ser::to_vec_named(&resize).unwrap();
    assert_eq!(hardpack::from_slice::<Job>(&named).unwrap(), resize);
}

#[test]
fn job_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<Job>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<Job>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    assert!(report.untested().is_none(), "{}", report.text());
}

#[test]
fn account_id_without_a_sample_is_not_called_hardened() {
    let report = check::<AccountId>().run();
    eprintln!("{}", report.text());
    assert!(report.broken().is_empty(), "{}", report.text());
    let why = report
        .untested()
        .expect("the untagged struct variant was not seen");
    assert!(why.contains("untagged enum AccountId"), "{why}");
}

#[test]
fn account_id_with_a_sample_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<AccountId>().sample(&sharded()).run();
    table(&report, started);
    report.assert_hardened();
}

#[test]
fn account_id_with_a_sample_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<AccountId>()
        .sample(&sharded())
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<AccountId>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    assert!(report.untested().is_none(), "{}", report.text());
}

#[test]
fn audit_record_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<AuditRecord>().sample(&audit_record()).run();
    table(&report, started);
    report.assert_hardened();
}

#[test]
fn audit_record_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<AuditRecord>()
        .sample(&audit_record())
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<AuditRecord>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    assert!(report.untested().is_none(), "{}", report.text());
    // A deep nesting in an attribute the service keeps as a value: rmp-serde recurses.
    assert!(
        report
            .broken()
            .iter()
            .any(|(row, _)| row.outcome == Outcome::StackOverflow),
        "{}",
        report.text()
    );
}

/// The planted bug: a 4 GiB reassembly buffer from a 20-byte chunk, found under both decoders.
fn chunk_bug_found(report: &Report) {
    assert!(report.untested().is_none(), "{}", report.text());
    let found: Vec<_> = report
        .broken()
        .into_iter()
        .filter(|(row, _)| {
            matches!(&row.outcome, Outcome::OverHeapCeiling(m) if m.contains("4294967295 bytes"))
        })
        .collect();
    assert!(!found.is_empty(), "{}", report.text());
}

#[test]
fn chunk_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<Chunk>().run();
    table(&report, started);
    chunk_bug_found(&report);
}

#[test]
fn chunk_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<Chunk>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<Chunk>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    chunk_bug_found(&report);
}

#[test]
fn log_line_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<LogLine<'static>>().run();
    table(&report, started);
    report.assert_hardened();
}

#[test]
fn log_line_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<LogLine<'static>>()
        .decoder_borrowing("rmp-serde", rmp_serde::from_slice::<LogLine<'_>>)
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    table(&report, started);
    assert!(report.untested().is_none(), "{}", report.text());
}
