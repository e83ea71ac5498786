//! When the allocator refuses a request (memory is exhausted, or a container's memory limit
//! is reached), decoding returns `OutOfMemory` instead of aborting the process: every
//! allocation a decode makes is a `try_reserve` after the budget allowed it. Shown with the
//! meter's refusal mode, under every ceiling between nothing and what the decode needs, for
//! each decoding surface that builds something (the owned tree, the borrowed tape, the
//! validator's stack, strict mode's key sets).

use hardpack::{Decoder, Error, ErrorKind, Limit, Limits};
use hardpack_harness::alloc_meter::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// No limit but the allocator: the budget never refuses first.
fn unbounded() -> Decoder {
    Decoder::new(Limits::unlimited().with(Limit::Depth, usize::MAX))
}

fn nested(open: &[u8], depth: usize, leaf: &[u8]) -> Vec<u8> {
    let mut bytes = open.repeat(depth);
    bytes.extend_from_slice(leaf);
    bytes
}

/// Documents that make each kind of allocation the largest: the stack of open containers
/// (65,537 levels: its last growth, a doubling, comes with the last level), a children
/// vector, a str and a bin buffer, map entries, and strict mode's key sets (str keys, so
/// that strict mode accepts every one).
fn documents() -> Vec<(&'static str, Vec<u8>)> {
    let mut wide = vec![0xdc, 0xff, 0xff];
    wide.extend(std::iter::repeat_n(0xc0, 0xffff));
    let mut long_str = vec![0xdb, 0x00, 0x10, 0x00, 0x00];
    long_str.extend(std::iter::repeat_n(b'a', 0x10_0000));
    let mut long_bin = vec![0xc6, 0x00, 0x10, 0x00, 0x00];
    long_bin.extend(std::iter::repeat_n(7, 0x10_0000));
    let mut distinct_keys = vec![0xde, 0x27, 0x10];
    for key in 0..10_000 {
        distinct_keys.push(0xa5);
        distinct_keys.extend_from_slice(format!("{key:05}").as_bytes());
        distinct_keys.push(0xc0);
    }
    vec![
        ("65,537 nested arrays", nested(&[0x91], 65_537, &[0xc0])),
        ("65,537 nested maps", nested(&[0x81, 0xa0], 65_537, &[0xc0])),
        ("an array of 65,535 nils", wide),
        ("a 1 MiB str", long_str),
        ("a 1 MiB bin", long_bin),
        ("a map of 10,000 distinct keys", distinct_keys),
    ]
}

/// Requires `decode` to succeed with the heap it needs, and to fail with `OutOfMemory`
/// (never abort, never another error) under each of a range of smaller ceilings. Returns
/// the number of ceilings that refused something.
fn refuses_gracefully<T>(what: &str, decode: impl Fn() -> Result<T, Error>) -> usize {
    let (whole, cost) = alloc_meter::measure(&decode);
    if let Err(e) = &whole {
        panic!("{what}: decodes with the allocator willing, but {e}");
    }
    drop(whole);
    assert!(cost.peak_bytes > 0, "{what}: allocates something");
    let mut refused = 0;
    // From the whole peak down by an eighth at a time: each kind of growth (a doubling of a
    // stack, a container's children, a buffer) is refused at some ceiling on the way.
    let mut ceiling = cost.peak_bytes;
    while ceiling > 0 {
        let result = alloc_meter::refusing_above(ceiling, &decode);
        if let Err(e) = &result {
            assert!(
                matches!(e.kind(), ErrorKind::OutOfMemory { bytes } if *bytes > 0),
                "{what}, {ceiling} bytes allowed: {e}"
            );
            refused += 1;
        }
        drop(result);
        ceiling = ceiling.saturating_mul(7) / 8;
    }
    assert!(
        alloc_meter::refusing_above(cost.peak_bytes, &decode).is_ok(),
        "{what}: the peak it was measured at is enough"
    );
    refused
}

#[test]
fn the_meter_refuses_past_its_ceiling_and_only_there() {
    assert!(alloc_meter::is_installed());
    let mut v: Vec<u8> = Vec::new();
    assert!(alloc_meter::refusing_above(1000, || v.try_reserve_exact(2000)).is_err());
    assert!(alloc_meter::refusing_above(1000, || v.try_reserve_exact(1000)).is_ok());
    assert!(
        v.try_reserve_exact(4000).is_ok(),
        "the ceiling is lifted after the call"
    );
}

#[test]
fn the_owned_and_borrowed_decodes_report_every_refused_allocation() {
    let decoder = unbounded();
    for (what, bytes) in documents() {
        let owned = refuses_gracefully(what, || decoder.decode(&bytes));
        let borrowed = refuses_gracefully(what, || decoder.decode_ref(&bytes));
        assert!(
            owned > 0 && borrowed > 0,
            "{what}: some ceiling refused something"
        );
    }
}

#[test]
fn strict_decoding_reports_every_refused_allocation() {
    let decoder = unbounded().strict();
    for (what, bytes) in documents() {
        refuses_gracefully(what, || decoder.decode(&bytes));
        refuses_gracefully(what, || decoder.decode_ref(&bytes));
        refuses_gracefully(what, || decoder.validate(&bytes));
    }
}

#[test]
fn validation_reports_a_refused_stack() {
    let decoder = unbounded();
    for (what, bytes) in documents().into_iter().take(2) {
        let refused = refuses_gracefully(what, || decoder.validate(&bytes));
        assert!(refused > 0, "{what}: some ceiling refused the stack");
    }
}
