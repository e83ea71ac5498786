#![no_main]
//! libFuzzer entry for the `serde_differential` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, serde_differential);
