//! AFL++ entry for the `encode_deep` target (defined in hardpack_harness::targets).

use hardpack_harness::alloc_meter::CountingAlloc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hardpack_harness::targets::encode_deep(data);
    });
}
