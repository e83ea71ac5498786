//! The verdict is honest: a check that tested nothing of the type fails and says what to
//! add; a sample gets it past what the tracer cannot; a decode that holds far more than its
//! input is broken whatever the decoder; every allocation path is held to the ceiling.

use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};

use hardpack_check::alloc::{measure, refusing_above};
use hardpack_check::{check, CountingAlloc, Outcome};
use serde::{Deserialize, Deserializer};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Accepts one magic string, and its refusal does not say which.
#[derive(Debug)]
struct Magic;

impl<'de> Deserialize<'de> for Magic {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "HPK1-7f3a" {
            Ok(Magic)
        } else {
            Err(serde::de::Error::custom("bad magic"))
        }
    }
}

#[test]
fn a_type_not_traced_and_given_no_sample_is_not_called_hardened() {
    let report = check::<Magic>().run();
    assert!(report.trace_error.is_some(), "{}", report.text());
    assert!(report.broken().is_empty(), "{}", report.text());
    let why = report.untested().expect("an untraced type tested nothing");
    assert!(why.contains(".sample(&value)"), "{why}");
    assert!(!report.is_hardened());
    assert!(report.text().contains("NOT TESTED"), "{}", report.text());
    let caught = std::panic::catch_unwind(|| report.assert_hardened());
    assert!(caught.is_err());
}

#[test]
fn a_sample_gets_the_check_past_what_the_tracer_cannot() {
    let magic = [&[0xa9][..], b"HPK1-7f3a"].concat();
    let report = check::<Magic>().sample_bytes("magic", magic).run();
    assert!(report.untested().is_none(), "{}", report.text());
    // The sample's one place was reached by its attacks.
    let places = report.places();
    assert!(
        places
            .iter()
            .any(|p| p.place == "magic" && p.reached_by.is_some()),
        "{places:#?}"
    );
    report.assert_hardened();
}

#[test]
fn a_decoder_that_decodes_nothing_tested_nothing() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Request {
        id: u64,
        name: String,
    }
    let report = check::<Request>()
        .decoder("a decoder of another format", |_| {
            Err::<(), _>("not my format")
        })
        .run();
    assert!(report.broken().is_empty());
    let why = report.untested().expect("nothing past the first refusal");
    assert!(why.contains("3 of the type's 3 places are open"), "{why}");
    assert!(
        why.contains("`Request.name` (never reached under a decoder of another format"),
        "{why}"
    );
    assert!(report.places().iter().all(|p| p.reached_by.is_none()));
}

#[test]
fn holding_far_more_than_the_input_is_broken_whatever_the_decoder() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Small {
        id: u8,
    }
    // 200 MiB reserved for any document (under the 1 GiB ceiling).
    let report = check::<Small>()
        .decoder("a decoder that buffers 200 MiB", |b| {
            let buffer: Vec<u8> = Vec::with_capacity(200 << 20);
            std::hint::black_box(&buffer);
            rmp_serde::from_slice::<Small>(b)
        })
        .run();
    // Every payload under 64 KiB the decoder lived through (rmp-serde's recursion kills it on
    // some) is broken by what it held, accepted or refused; a megabyte nesting may hold 200
    // MiB (1 KiB a byte).
    let lived: Vec<_> = report
        .rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Accepted | Outcome::Refused(_)))
        .filter(|r| r.input_bytes < 64 << 10)
        .collect();
    assert!(lived.len() > 50, "{}", report.text());
    for row in lived {
        let why = report.broken_because(row).unwrap_or_default();
        assert!(why.contains("per input byte"), "{row:?}: {why}");
    }
}

#[test]
fn holding_less_than_the_floor_is_not_broken() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Small {
        id: u8,
    }
    // 10 MiB is under the floor: not broken.
    let report = check::<Small>()
        .decoder("a decoder that buffers 10 MiB", |b| {
            let buffer: Vec<u8> = Vec::with_capacity(10 << 20);
            std::hint::black_box(&buffer);
            rmp_serde::from_slice::<Small>(b)
        })
        .run();
    // (rmp-serde's recursion still overflows on the deep nestings: that is another fault.)
    assert!(
        report
            .broken()
            .iter()
            .all(|(_, why)| !why.contains("per input byte")),
        "{}",
        report.text()
    );
}

#[test]
fn growing_past_the_ceiling_by_realloc_is_over_the_ceiling() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Small {
        id: u8,
    }
    let report = check::<Small>()
        .heap_ceiling(1 << 20)
        .decoder("a decoder that grows a Vec to 4 MiB", |b| {
            let mut grown: Vec<u8> = Vec::new();
            for i in 0..(4u32 << 20) {
                grown.push(i as u8);
            }
            std::hint::black_box(&grown);
            rmp_serde::from_slice::<Small>(b)
        })
        .run();
    let over: Vec<_> = report
        .rows
        .iter()
        .filter(|r| matches!(&r.outcome, Outcome::OverHeapCeiling(m) if m.contains("memory allocation of")))
        .collect();
    assert!(!over.is_empty(), "{}", report.text());
}

const MIB: usize = 1 << 20;

/// Each path of the global allocator, held to the ceiling and counted in the peak.
#[test]
fn every_allocation_path_is_refused_above_the_ceiling_and_counted_in_the_peak() {
    let layout = Layout::from_size_align(4 * MIB, 8).unwrap();
    type Path = unsafe fn(Layout) -> *mut u8;
    for (name, path) in [
        ("alloc", alloc as Path),
        ("alloc_zeroed", alloc_zeroed as Path),
    ] {
        let refused = refusing_above(MIB, || unsafe { path(layout) });
        assert!(
            refused.is_null(),
            "{name} above the ceiling was not refused"
        );
        let (ptr, cost) = measure(|| unsafe { path(layout) });
        assert!(!ptr.is_null());
        unsafe { dealloc(ptr, layout) };
        assert!(
            cost.peak_bytes >= 4 * MIB,
            "{name}: peak {}",
            cost.peak_bytes
        );
    }
    let small = Layout::from_size_align(1024, 8).unwrap();
    let ptr = unsafe { alloc(small) };
    assert!(!ptr.is_null());
    let grown = refusing_above(MIB, || unsafe { realloc(ptr, small, 4 * MIB) });
    assert!(grown.is_null(), "realloc above the ceiling was not refused");
    let (grown, cost) = measure(|| unsafe { realloc(ptr, small, 4 * MIB) });
    assert!(!grown.is_null());
    assert!(
        cost.peak_bytes >= 4 * MIB - 1024,
        "realloc: peak {}",
        cost.peak_bytes
    );
    unsafe { dealloc(grown, Layout::from_size_align(4 * MIB, 8).unwrap()) };
}

#[test]
fn the_ceiling_allows_exactly_its_size_and_refuses_one_byte_more() {
    let at = Layout::from_size_align(MIB, 8).unwrap();
    let over = Layout::from_size_align(MIB + 1, 8).unwrap();
    let ptr = refusing_above(MIB, || unsafe { alloc(at) });
    assert!(
        !ptr.is_null(),
        "a request of exactly the ceiling was refused"
    );
    unsafe { dealloc(ptr, at) };
    let ptr = refusing_above(MIB, || unsafe { alloc(over) });
    assert!(
        ptr.is_null(),
        "a request one byte over the ceiling was allowed"
    );
}

#[test]
fn freed_memory_leaves_the_peak_and_the_live_count() {
    let layout = Layout::from_size_align(MIB, 8).unwrap();
    let ((), cost) = measure(|| {
        for _ in 0..4 {
            // black_box: an optimised build may remove an allocation nothing uses.
            let ptr = std::hint::black_box(unsafe { alloc(layout) });
            assert!(!ptr.is_null());
            unsafe { dealloc(std::hint::black_box(ptr), layout) };
        }
    });
    // Four allocations of 1 MiB, one live at a time.
    assert_eq!(cost.allocations, 4);
    assert!(
        cost.peak_bytes >= MIB && cost.peak_bytes < 2 * MIB,
        "{cost:?}"
    );
    assert_eq!(cost.kept_bytes, 0, "{cost:?}");
}
