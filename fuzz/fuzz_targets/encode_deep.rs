#![no_main]
//! libFuzzer entry for the `encode_deep` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, encode_deep);
