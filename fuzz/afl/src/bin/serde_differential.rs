//! AFL++ entry for the `serde_differential` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, serde_differential);
