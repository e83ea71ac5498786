//! The oracles behind `fuzz_typed!`, and the seeds it starts from.

use hardpack_check::{fuzz, seeds_for, CountingAlloc, MAX_SEED_BYTES};
use serde::{Deserialize, Deserializer, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[derive(Serialize, Deserialize, Debug)]
enum Tree {
    Leaf(f64),
    List(Vec<Tree>),
    Named {
        name: String,
        child: Option<Box<Tree>>,
    },
}

#[test]
fn seeds_are_small_and_nest_just_past_the_default_depth() {
    let seeds = seeds_for::<Tree>();
    assert!(seeds.len() > 20);
    assert!(seeds.iter().all(|s| s.bytes.len() <= MAX_SEED_BYTES));
    let nested: Vec<_> = seeds.iter().filter(|s| s.id.ends_with(".nested")).collect();
    assert!(!nested.is_empty());
    for seed in nested {
        let err = hardpack::from_slice::<Tree>(&seed.bytes).unwrap_err();
        assert_eq!(err.limit(), Some(hardpack::Limit::Depth), "{seed:?}: {err}");
    }
}

#[test]
fn the_oracles_hold_on_every_seed_of_a_well_behaved_type() {
    for seed in seeds_for::<Tree>() {
        fuzz::roundtrip_checked::<Tree>(&seed.bytes);
    }
}

/// A `Deserialize` that allocates 200 MiB whatever the input says.
struct Greedy;

impl<'de> Deserialize<'de> for Greedy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let _ = bool::deserialize(deserializer)?;
        let big = std::hint::black_box(vec![1u8; 200 << 20]);
        drop(big);
        Ok(Greedy)
    }
}

#[test]
#[should_panic(expected = "over the bound")]
fn a_decode_over_the_documented_heap_bound_fails_the_target() {
    fuzz::decode_checked::<Greedy>(&[0xc3]);
}
