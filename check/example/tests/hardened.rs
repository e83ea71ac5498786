//! Each type checked with hardpack-check: clean against hardpack; against rmp-serde, what the
//! kit must find (a nested payload overflowing the decoding thread's stack).

use hardpack::Limit;
use hardpack_check::{check, CountingAlloc, Outcome, Report};
use hardpack_check_example::{Config, Event, Level, RpcRequest, TagValue};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The stack on which rmp-serde's recursion (to its own limit of 1024 levels) overflows: a
/// tokio worker's 2 MiB in a debug build; an optimised build's frames are smaller, so less.
const RMP_SERDE_STACK: usize = if cfg!(debug_assertions) {
    2 << 20
} else {
    64 << 10
};

mod common;

/// The rows rmp-serde's recursion took down (every payload ran: the check went on after
/// each death).
fn overflows(report: &Report) -> Vec<String> {
    assert!(report.failure.is_none(), "{}", report.text());
    report
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::StackOverflow)
        .map(|r| r.id.clone())
        .collect()
}

#[test]
fn rpc_request_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<RpcRequest>().round_trip().run();
    common::table(&report, started);
    assert!(report.trace_error.is_none(), "{:?}", report.trace_error);
    report.assert_hardened();
}

#[test]
fn rpc_request_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<RpcRequest>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<RpcRequest>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    common::table(&report, started);
    let overflows = overflows(&report);
    assert!(
        overflows.iter().any(|id| id.contains("::List[].nested")),
        "{}",
        report.text()
    );
}

/// An event as a client sends it: the tracer cannot see every variant of the untagged tag
/// value (its refusal names none), so the check takes a sample.
fn event() -> Event {
    Event {
        event_id: "7c1d".into(),
        timestamp: 1.5,
        level: Level::Error,
        tags: vec![
            ("region".into(), TagValue::Text("eu".into())),
            ("retries".into(), TagValue::Number(3)),
        ],
        breadcrumbs: Vec::new(),
        extra: hardpack::Value::Nil,
    }
}

#[test]
fn event_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<Event>().round_trip().sample(&event()).run();
    common::table(&report, started);
    assert!(report.trace_error.is_none(), "{:?}", report.trace_error);
    // The untagged tag value and the uninterpreted part are opaque: they get the generic bombs.
    assert!(report
        .rows
        .iter()
        .any(|r| r.id.starts_with("Event.extra.bomb-")));
    report.assert_hardened();
}

#[test]
fn event_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<Event>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<Event>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    common::table(&report, started);
    // A deep nesting in the part the service does not interpret (relay#6212's shape).
    assert!(
        overflows(&report)
            .iter()
            .any(|id| id.starts_with("Event.extra.bomb-") || id.contains("unknown-field-nested")),
        "{}",
        report.text()
    );
}

#[test]
fn config_with_hardpack() {
    let started = std::time::Instant::now();
    let report = check::<Config>().round_trip().run();
    common::table(&report, started);
    assert!(report.trace_error.is_none(), "{:?}", report.trace_error);
    assert!(report.rows.iter().any(|r| r.id.ends_with(".nested")));
    report.assert_hardened();
}

#[test]
fn config_with_rmp_serde() {
    let started = std::time::Instant::now();
    let report = check::<Config>()
        .decoder("rmp-serde", |b| rmp_serde::from_slice::<Config>(b))
        .stack_bytes(RMP_SERDE_STACK)
        .run();
    common::table(&report, started);
    assert!(
        overflows(&report).iter().any(|id| id.ends_with(".nested")),
        "{}",
        report.text()
    );
}

#[test]
fn rpc_request_budget_sweep() {
    let started = std::time::Instant::now();
    let report = check::<RpcRequest>()
        .sweep(Limit::AllocBytes, [64, 1 << 10, 16 << 10, 64 << 20])
        .run();
    common::table(&report, started);
    // Each run held to the heap bound of the budget it ran under.
    report.assert_hardened();
    // The valid samples decode once the budget holds them, and not under 64 bytes.
    let valid: Vec<_> = report
        .flip_points()
        .into_iter()
        .filter(|(index, _)| report.rows[*index].id.contains("valid-full"))
        .collect();
    assert!(!valid.is_empty());
    for (index, flip) in valid {
        assert!(
            flip.is_some_and(|at| at > 64),
            "#{index}: {flip:?}\n{}",
            report.text()
        );
    }
    let page = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rpc_request_sweep.html");
    std::fs::write(&page, report.html().unwrap()).unwrap();
    eprintln!("report: {}", page.display());
}
