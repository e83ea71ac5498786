#![no_main]
//! libFuzzer entry for the `tokens_roundtrip` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, tokens_roundtrip);
