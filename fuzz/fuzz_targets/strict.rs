#![no_main]
//! libFuzzer entry for the `strict` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, strict);
