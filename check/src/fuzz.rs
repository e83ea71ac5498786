//! The oracles of a fuzz target on your own type, for [`fuzz_typed!`](crate::fuzz_typed):
//! every input is decoded as `T` by hardpack under `Limits::default()`, and the target fails
//! (panics) when
//!
//! - the decode panics (libFuzzer and AFL++ report it);
//! - the decode held more heap at peak than the documented bound for the limits
//!   ([`heap_bound`], as `hardpack::de` documents it), measured by the counting allocator;
//! - the decode accepted a document that the same decoder's `validate` refuses for another
//!   reason than `max_alloc_bytes` (the typed budget charges a type's sizes, `validate` charges
//!   `Value`s, so the two budgets may part);
//! - with `roundtrip`, for `T: Serialize`: decode → encode → decode → encode does not give the
//!   same bytes twice (bytes, not `PartialEq`: a NaN or a skipped field breaks equality).

use hardpack::Limits;
use serde::de::{Deserialize, DeserializeOwned};
use serde::Serialize;

use crate::alloc;

/// The most serde reserves from one collection's size hint (its `size_hint::cautious` cap).
pub const SERDE_RESERVE_CAP_BYTES: usize = 1 << 20;

/// The most heap a hardpack typed decode of an `input_len`-byte document may hold at once
/// under `limits`, as `hardpack::de` documents it: twice `max_alloc_bytes` (a collection
/// growing past its hint holds up to twice what its elements were charged) plus what serde
/// may reserve from a hint, [`SERDE_RESERVE_CAP_BYTES`], for each collection open at once
/// (no more than `max_depth` + 1, each opened by at least one byte of the input).
pub fn heap_bound(limits: &Limits, input_len: usize) -> usize {
    let open_collections = limits.max_depth.min(input_len).saturating_add(1);
    limits
        .max_alloc_bytes
        .saturating_mul(2)
        .saturating_add(SERDE_RESERVE_CAP_BYTES.saturating_mul(open_collections))
}

/// Decodes `data` as `T` under `Limits::default()` and checks the oracles that need nothing
/// of `T` but `Deserialize`. Returns the value when it decoded.
pub fn decode_checked<T: DeserializeOwned>(data: &[u8]) -> Option<T> {
    decode_checked_with(&hardpack::Decoder::new(Limits::default()), data).ok()
}

/// [`decode_checked`] with any decoder (its limits, its strictness), for any `T`, borrowing
/// from `data` or not: panics when the decode held more than [`heap_bound`] for the decoder's
/// limits (with the counting allocator installed), or accepted a document the same decoder's
/// `validate` refuses for another reason than the budget (which charges a typed value by its
/// type's sizes, and a validated one as `Value`s).
pub fn decode_checked_with<'de, T: Deserialize<'de>>(
    decoder: &hardpack::Decoder,
    data: &'de [u8],
) -> Result<T, hardpack::Error> {
    let (decoded, cost) = alloc::measure(|| decoder.from_slice::<T>(data));
    if alloc::is_installed() {
        let bound = heap_bound(decoder.limits(), data.len());
        assert!(
            cost.peak_bytes <= bound,
            "the decode held {} bytes at peak, over the bound {bound} for its limits \
             (max_alloc_bytes {})",
            cost.peak_bytes,
            decoder.limits().max_alloc_bytes,
        );
    }
    if decoded.is_ok() {
        if let Err(e) = decoder.validate(data) {
            let budget = e.limit() == Some(hardpack::Limit::AllocBytes)
                || matches!(e.kind(), hardpack::ErrorKind::OutOfMemory { .. });
            assert!(
                budget,
                "decoded as the type a document that validate refuses: {e}"
            );
        }
    }
    decoded
}

/// [`decode_checked`], then for a value that decoded, [`assert_round_trips`].
pub fn roundtrip_checked<T: DeserializeOwned + Serialize>(data: &[u8]) {
    if let Some(value) = decode_checked::<T>(data) {
        assert_round_trips(&value);
    }
}

/// Panics unless encoding `value`, decoding that and encoding again gives the same bytes
/// (bytes, not `PartialEq`: a NaN or a skipped field breaks equality). A value that does not
/// encode (a map with non-string keys the type refuses, say) passes.
pub fn assert_round_trips<T: DeserializeOwned + Serialize>(value: &T) {
    let Ok(first) = hardpack::to_vec(value) else {
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
