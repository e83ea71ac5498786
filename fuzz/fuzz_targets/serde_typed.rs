#![no_main]
//! libFuzzer entry for the `serde_typed` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, serde_typed);
