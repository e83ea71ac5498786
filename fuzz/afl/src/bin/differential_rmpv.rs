//! AFL++ entry for the `differential_rmpv` target (defined in hardpack_harness::targets).

use hardpack_harness::alloc_meter::CountingAlloc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hardpack_harness::targets::differential_rmpv(data);
    });
}
