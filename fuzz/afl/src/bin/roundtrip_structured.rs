//! AFL++ entry for the `roundtrip_structured` target (defined in hardpack_harness::targets).

use hardpack_harness::alloc_meter::CountingAlloc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hardpack_harness::targets::roundtrip_structured(data);
    });
}
