//! Typed decoding under a budget, measured by the counting allocator: hostile payloads into
//! types whose elements are large stay within twice `max_alloc_bytes` plus serde's reservation
//! cap (the documented slack), and are refused by the budget, not by the allocator.

use std::collections::HashMap;

use hardpack::{Decoder, Limit, Limits};
use hardpack_harness::alloc_meter::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const BUDGET: usize = 1 << 20;
/// serde reserves at most 1 MiB from a size hint, per open collection.
const SERDE_CAP: usize = 1 << 20;

fn decoder() -> Decoder {
    Decoder::new(Limits::default().with(Limit::AllocBytes, BUDGET))
}

/// An array32 header claiming `n` elements, then `n` copies of `item`.
fn array_of(n: u32, item: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0xdd];
    bytes.extend(n.to_be_bytes());
    for _ in 0..n {
        bytes.extend(item);
    }
    bytes
}

fn check<T: for<'de> serde::Deserialize<'de>>(what: &str, input: &[u8]) {
    assert!(alloc_meter::is_installed());
    let (result, cost) = alloc_meter::measure(|| decoder().from_slice::<T>(input).map(drop));
    let err = result.expect_err(what);
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{what}: {err}");
    assert!(
        cost.peak_bytes <= 2 * BUDGET + SERDE_CAP,
        "{what}: {} bytes at peak for a budget of {BUDGET}",
        cost.peak_bytes
    );
    println!(
        "{what}: refused at byte {}, peak {} bytes for {} input bytes ({:.1} per input byte)",
        err.offset(),
        cost.peak_bytes,
        input.len(),
        cost.peak_bytes as f64 / input.len() as f64
    );
}

#[test]
fn a_million_elements_into_big_types_stay_within_the_budget() {
    // A million empty arrays, each read as [u64; 32] would be refused by its length; a million
    // nils read as Option<[u64; 32]> (264 bytes each) are not.
    check::<Vec<Option<[u64; 32]>>>("Vec<Option<[u64; 32]>>", &array_of(1_000_000, &[0xc0]));
    // 32 zeros each: 33 input bytes an element, 256 bytes of element.
    let mut item = vec![0xdc, 0x00, 0x20];
    item.extend([0u8; 32]);
    check::<Vec<[u64; 32]>>("Vec<[u64; 32]>", &array_of(100_000, &item));
    // A map of 100,000 distinct short keys to empty arrays (a `Vec<u8>` reads a sequence).
    let mut map = vec![0xdf];
    map.extend(100_000u32.to_be_bytes());
    for i in 0..100_000u32 {
        let key = format!("{i:06}");
        map.push(0xa6);
        map.extend(key.as_bytes());
        map.push(0x90);
    }
    check::<HashMap<String, Vec<u8>>>("HashMap<String, Vec<u8>>", &map);
}
