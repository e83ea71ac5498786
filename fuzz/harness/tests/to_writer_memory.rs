//! What `to_writer` keeps between calls, measured by the counting allocator: once the thread's
//! buffer exists a small message costs no allocation, a buffer of up to 64 KiB stays for the
//! next call, and a larger one (grown for a sequence of unknown length, which is held whole)
//! is released when the call ends.

use hardpack_harness::alloc_meter::{self, CountingAlloc};
use serde::{Serialize, Serializer};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn small() -> (u32, &'static str, [f64; 3]) {
    (7, "small", [1.0, 2.0, 3.0])
}

/// `len` u64 values in a sequence whose length serde is not told up front.
struct UnknownLength {
    len: u64,
}

impl Serialize for UnknownLength {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.len).map(|_| u64::MAX).filter(|_| true))
    }
}

#[test]
fn to_writer_keeps_a_buffer_of_up_to_64_kib_for_the_next_call_and_no_larger() {
    assert!(alloc_meter::is_installed());
    // Room for everything written below: the writer itself never allocates.
    let mut out = Vec::with_capacity(4 << 20);
    hardpack::ser::to_writer(&mut out, &small()).unwrap(); // makes the thread's buffer

    out.clear();
    let (_, cost) = alloc_meter::measure(|| hardpack::ser::to_writer(&mut out, &small()).unwrap());
    assert_eq!(
        cost.allocations, 0,
        "a small message once the buffer exists: {cost:?}"
    );

    // 5,000 u64 of 9 bytes: written in chunks of 32 KiB, the buffer grown to 64 KiB, and kept.
    out.clear();
    hardpack::ser::to_writer(&mut out, &vec![u64::MAX; 5_000]).unwrap();
    assert_eq!(out.len(), 3 + 5_000 * 9);
    out.clear();
    let (_, cost) = alloc_meter::measure(|| hardpack::ser::to_writer(&mut out, &small()).unwrap());
    assert_eq!(cost.allocations, 0, "after a 45 KB value: {cost:?}");

    // 1.8 MB held whole (its header goes in front of it): that buffer is not kept.
    out.clear();
    let (_, cost) = alloc_meter::measure(|| {
        hardpack::ser::to_writer(&mut out, &UnknownLength { len: 200_000 }).unwrap()
    });
    assert_eq!(out.len(), 5 + 200_000 * 9);
    assert!(
        cost.peak_bytes > 1 << 20,
        "the sequence was held whole: {cost:?}"
    );
    assert!(
        cost.kept_bytes <= 64 << 10,
        "kept {} bytes after the call",
        cost.kept_bytes
    );
}
