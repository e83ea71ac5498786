//! The oracles of a fuzz target on your own type, for [`fuzz_typed!`](crate::fuzz_typed):
//! every input is decoded as `T` by hardpack under `Limits::default()`, and the target fails
//! (panics) when
//!
//! - the decode panics (libFuzzer and AFL++ report it);
//! - the decode held more heap at peak than the documented bound for the limits
//!   (2 × `max_alloc_bytes` + 8 MiB, see `hardpack::de`), measured by the counting allocator;
//! - the decode accepted a document that `hardpack::validate` refuses;
//! - with `roundtrip`, for `T: Serialize`: decode → encode → decode → encode does not give the
//!   same bytes twice (bytes, not `PartialEq`: a NaN or a skipped field breaks equality).

use hardpack::Limits;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::alloc;

/// The peak heap a typed decode may hold under `limits`: see [`crate::Report::documented_heap_bound`].
pub fn heap_bound(limits: &Limits) -> usize {
    limits
        .max_alloc_bytes
        .saturating_mul(2)
        .saturating_add(8 << 20)
}

/// Decodes `data` as `T` and checks the oracles that need nothing of `T` but `Deserialize`.
/// Returns the value when it decoded.
pub fn decode_checked<T: DeserializeOwned>(data: &[u8]) -> Option<T> {
    let limits = Limits::default();
    let decoder = hardpack::Decoder::new(limits.clone());
    let (decoded, cost) = alloc::measure(|| decoder.from_slice::<T>(data));
    if alloc::is_installed() {
        assert!(
            cost.peak_bytes <= heap_bound(&limits),
            "the decode held {} bytes at peak, over the bound {} for the default limits",
            cost.peak_bytes,
            heap_bound(&limits)
        );
    }
    if decoded.is_ok() {
        if let Err(e) = hardpack::validate(data) {
            panic!("decoded as the type a document that validate refuses: {e}");
        }
    }
    decoded.ok()
}

/// [`decode_checked`], then for a value that decoded: encoding it, decoding that and encoding
/// again gives the same bytes.
pub fn roundtrip_checked<T: DeserializeOwned + Serialize>(data: &[u8]) {
    let Some(value) = decode_checked::<T>(data) else {
        return;
    };
    let Ok(first) = hardpack::to_vec(&value) else {
        return;
    };
    let again: T = hardpack::from_slice(&first)
        .unwrap_or_else(|e| panic!("what the type encoded does not decode: {e}"));
    let second = hardpack::to_vec(&again).expect("a value that encoded once encodes again");
    assert!(
        first == second,
        "decode -> encode -> decode -> encode gave other bytes: {first:02x?} then {second:02x?}"
    );
}

/// A fuzz target on your own type, with the counting allocator installed. Put it in a file of
/// your `fuzz/fuzz_targets/` (libFuzzer, after `#![no_main]`) or of an AFL++ crate's
/// `src/bin/`:
///
/// ```ignore
/// #![no_main]
/// hardpack_check::fuzz_typed!(libfuzzer, my_service::Request);
/// // or, for a type that is also Serialize, with the round-trip oracle:
/// hardpack_check::fuzz_typed!(libfuzzer, my_service::Request, roundtrip);
/// ```
///
/// The calling crate depends on `libfuzzer-sys` or `afl`. Seed the corpus with
/// [`write_seeds`](crate::write_seeds).
#[macro_export]
macro_rules! fuzz_typed {
    (libfuzzer, $ty:ty $(, $roundtrip:ident)?) => {
        #[global_allocator]
        static ALLOC: $crate::CountingAlloc = $crate::CountingAlloc;

        ::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $crate::fuzz_typed!(@check $ty, data $(, $roundtrip)?);
        });
    };
    (afl, $ty:ty $(, $roundtrip:ident)?) => {
        #[global_allocator]
        static ALLOC: $crate::CountingAlloc = $crate::CountingAlloc;

        fn main() {
            ::afl::fuzz!(|data: &[u8]| {
                $crate::fuzz_typed!(@check $ty, data $(, $roundtrip)?);
            });
        }
    };
    (@check $ty:ty, $data:ident) => {
        let _ = $crate::fuzz::decode_checked::<$ty>($data);
    };
    (@check $ty:ty, $data:ident, roundtrip) => {
        $crate::fuzz::roundtrip_checked::<$ty>($data);
    };
}
