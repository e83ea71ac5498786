//! The attacks, measured: each is refused with its specific error and a small peak heap, or
//! decoded within the budget. Counted by the meter installed as this test's allocator.

use hardpack::{Decoder, ErrorKind, Limit, Limits, Value};
use hardpack_harness::alloc_meter::{self, Cost, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const SMALL: usize = 64 * 1024;

fn measured(decoder: &Decoder, input: &[u8]) -> (Result<Value, hardpack::Error>, Cost) {
    assert!(alloc_meter::is_installed());
    alloc_meter::measure(|| decoder.decode(input))
}

#[test]
fn five_byte_huge_claims_allocate_almost_nothing() {
    let claims: [(&[u8], Limit); 5] = [
        (&[0xdd, 0xff, 0xff, 0xff, 0xff], Limit::ArrayLen),
        (&[0xdf, 0xff, 0xff, 0xff, 0xff], Limit::MapLen),
        (&[0xdb, 0xff, 0xff, 0xff, 0xff], Limit::StrLen),
        (&[0xc6, 0xff, 0xff, 0xff, 0xff], Limit::BinLen),
        (&[0xc9, 0xff, 0xff, 0xff, 0xff, 0x05], Limit::ExtLen),
    ];
    for (input, limit) in claims {
        for limits in [Limits::default(), Limits::unlimited()] {
            let (result, cost) = measured(&Decoder::new(limits.clone()), input);
            let err = result.unwrap_err();
            if limits == Limits::default() {
                assert_eq!(err.limit(), Some(limit));
            } else {
                assert!(err.is_incomplete(), "{err}");
            }
            assert!(
                cost.peak_bytes < SMALL,
                "{limit}: {} bytes",
                cost.peak_bytes
            );
        }
    }
}

#[test]
fn ten_million_deep_nesting_is_refused_with_a_small_peak() {
    let mut bomb = vec![0x91u8; 10_000_000];
    bomb.push(0xc0);
    let (result, cost) = measured(&Decoder::default(), &bomb);
    assert_eq!(result.unwrap_err().limit(), Some(Limit::Depth));
    assert!(cost.peak_bytes < SMALL, "{} bytes", cost.peak_bytes);
    // Without a depth limit the budget still holds: the decode is refused within it.
    let no_depth = Limits::default().with(Limit::Depth, usize::MAX);
    let (result, cost) = measured(&Decoder::new(no_depth.clone()), &bomb);
    let err = result.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LimitExceeded {
                limit: Limit::AllocBytes,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        cost.peak_bytes <= no_depth.max_alloc_bytes,
        "{} bytes",
        cost.peak_bytes
    );
}

#[test]
fn nested_huge_claims_are_refused_by_the_bytes_left() {
    // msgpackr PR 200: array16 headers claiming 65535 each, nested (there: ~72 KB reaching
    // ~1.4 GB). Each level's claim is checked against the bytes left, counting what the outer
    // levels still expect, so only the outermost claim is reserved: one Value per input byte.
    let bomb: Vec<u8> = std::iter::repeat_n([0xdc, 0xff, 0xff], 24_000)
        .flatten()
        .collect();
    let lifted = Limits::unlimited();
    let (result, cost) = measured(&Decoder::new(lifted), &bomb);
    let err = result.unwrap_err();
    assert!(err.is_incomplete(), "{err}");
    assert!(err.depth() <= 1, "refused at depth {}", err.depth());
    let per_input_byte = std::mem::size_of::<Value>();
    assert!(
        cost.peak_bytes <= per_input_byte * bomb.len() + 4096,
        "{} bytes for {} input bytes",
        cost.peak_bytes,
        bomb.len()
    );
}

#[test]
fn ten_million_empty_arrays_stay_within_the_budget() {
    const COUNT: usize = 10_000_000;
    let mut input = vec![0xdd];
    input.extend_from_slice(&(COUNT as u32).to_be_bytes());
    input.extend(std::iter::repeat_n(0x90, COUNT));
    let lengths_lifted = Limits::default().with(Limit::ArrayLen, usize::MAX);
    for budget in [64 << 20, 256 << 20, 1 << 30] {
        let limits = lengths_lifted.clone().with(Limit::AllocBytes, budget);
        let (result, cost) = measured(&Decoder::new(limits), &input);
        assert!(
            cost.peak_bytes <= budget,
            "peak {} above budget {budget}",
            cost.peak_bytes
        );
        match result {
            Ok(v) => {
                assert_eq!(v.as_array().map(<[Value]>::len), Some(COUNT));
                println!(
                    "budget {budget}: decoded, peak {} bytes = {:.1} B per element, {} allocations",
                    cost.peak_bytes,
                    cost.peak_bytes as f64 / COUNT as f64,
                    cost.allocations
                );
            }
            Err(e) => {
                assert_eq!(e.limit(), Some(Limit::AllocBytes), "{e}");
                println!("budget {budget}: refused, peak {} bytes", cost.peak_bytes);
            }
        }
    }
}

#[test]
fn a_decoded_value_costs_what_it_was_charged() {
    let doc = hardpack::encode(&Value::from(vec![
        Value::from("hello"),
        Value::from(vec![(Value::from(1u8), Value::from(vec![Value::Nil; 50]))]),
        Value::Bin(vec![9; 300].into()),
    ]))
    .unwrap();
    let decoder = Decoder::default();
    let ((value, stats), cost) = alloc_meter::measure(|| decoder.decode_with_stats(&doc).unwrap());
    assert!(
        cost.peak_bytes <= stats.charged_bytes,
        "{cost:?} > {stats:?}"
    );
    drop(value);
}

#[test]
fn dropping_a_value_stays_within_the_reserve_it_was_charged() {
    // A chain 200,000 deep, arrays and maps alternating.
    let depth = 200_000;
    let mut chain = Vec::new();
    for level in 0..depth {
        chain.extend_from_slice(if level % 2 == 0 {
            &[0x92, 0x01]
        } else {
            &[0x81, 0xa1, b'k']
        });
    }
    chain.push(0xc0);
    chain.extend(std::iter::repeat_n(0x02, depth / 2));
    // The worst case for the drop stack: non-empty arrays side by side at depth 10, the first
    // level below the nine dropped on the native stack, all waiting on it at once. 70,000 of
    // them, just past a power of two, so the stack's doubling leaves the most room unused.
    let wide = 70_000u32;
    let mut fan = vec![0x91; 8];
    fan.push(0xdd);
    fan.extend_from_slice(&wide.to_be_bytes());
    for _ in 0..wide {
        fan.extend_from_slice(&[0x91, 0x01]);
    }
    for doc in [chain, fan] {
        let decoder = Decoder::new(Limits::unlimited());
        let (value, stats) = decoder.decode_with_stats(&doc).unwrap();
        let containers = value.shape().containers;
        let ((), dropped) = alloc_meter::measure(|| drop(value));
        let reserve = hardpack::value::DROP_RESERVE_PER_CONTAINER * containers;
        println!(
            "{containers} containers: charged {} bytes, drop stack peak {} bytes (reserve {reserve})",
            stats.charged_bytes, dropped.peak_bytes
        );
        assert!(dropped.peak_bytes > 0, "this shape needs the heap stack");
        assert!(dropped.peak_bytes <= reserve, "{dropped:?} > {reserve}");
    }
}

#[test]
fn dropping_empty_containers_needs_no_heap_stack() {
    // The fan above with empty arrays and maps at depth 10: they own no children, so none
    // waits on the drop stack (and decoding charged them no drop reserve).
    let wide = 70_000u32;
    let mut fan = vec![0x91; 8];
    fan.push(0xdd);
    fan.extend_from_slice(&wide.to_be_bytes());
    for i in 0..wide {
        fan.push(if i % 2 == 0 { 0x90 } else { 0x80 });
    }
    let value = Decoder::new(Limits::unlimited()).decode(&fan).unwrap();
    assert_eq!(value.shape().max_depth, 10);
    let ((), dropped) = alloc_meter::measure(|| drop(value));
    assert_eq!(dropped.peak_bytes, 0, "{dropped:?}");
}
