//! AFL++ entry for the `serde_typed` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, serde_typed);
