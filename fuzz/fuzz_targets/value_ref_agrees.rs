#![no_main]
//! libFuzzer entry for the `value_ref_agrees` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, value_ref_agrees);
