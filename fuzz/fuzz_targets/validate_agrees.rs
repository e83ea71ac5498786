#![no_main]
//! libFuzzer entry for the `validate_agrees` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, validate_agrees);
