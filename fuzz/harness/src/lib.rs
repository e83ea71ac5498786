//! The fuzz targets of hardpack, defined once, and the allocation meter they use.
//!
//! libFuzzer (`fuzz/fuzz_targets/`), AFL (`fuzz/afl/`), the regression replay
//! (`regression/`) and `hardpack repro --target` all call [`targets`], so an input replays
//! the same everywhere. This crate is test support: the `hardpack` command uses it only to
//! run a target and to count allocations.

/// The counting allocator, from hardpack-check (the kit users run on their own types).
pub use hardpack_check::alloc as alloc_meter;
pub mod model;
pub mod mutator;
pub mod schema;
pub mod structured;
pub mod targets;

pub use targets::{target, Outcome, Target, TARGETS};

/// The entry point of one fuzz target for one engine: the whole body of a wrapper file in
/// `fuzz/fuzz_targets/` (libFuzzer, after `#![no_main]`) or `fuzz/afl/src/bin/` (AFL++).
/// It installs the counting allocator (the targets measure what decoding allocates) and
/// calls the target's function. The calling crate depends on `libfuzzer-sys` or `afl`.
#[macro_export]
macro_rules! fuzz_entry {
    (libfuzzer, $target:ident) => {
        #[global_allocator]
        static ALLOC: $crate::alloc_meter::CountingAlloc = $crate::alloc_meter::CountingAlloc;

        ::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $crate::targets::$target(data);
        });

        // Structure-aware mutation for the targets that read MessagePack (see
        // `hardpack_harness::mutator`); the others get libFuzzer's own.
        ::libfuzzer_sys::fuzz_mutator!(|data: &mut [u8],
                                        size: usize,
                                        max_size: usize,
                                        seed: u32| {
            match $crate::mutator::payload_offset(stringify!($target)) {
                Some(at) => $crate::mutator::mutate(
                    data,
                    size,
                    max_size,
                    seed,
                    at,
                    ::libfuzzer_sys::fuzzer_mutate,
                ),
                None => ::libfuzzer_sys::fuzzer_mutate(data, size, max_size),
            }
        });
    };
    (afl, $target:ident) => {
        #[global_allocator]
        static ALLOC: $crate::alloc_meter::CountingAlloc = $crate::alloc_meter::CountingAlloc;

        fn main() {
            ::afl::fuzz!(|data: &[u8]| {
                $crate::targets::$target(data);
            });
        }
    };
}
