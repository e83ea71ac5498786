#![no_main]
//! libFuzzer entry for the `differential_rmpv` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, differential_rmpv);
