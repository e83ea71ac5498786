//! AFL++ entry for the `derive_differential` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, derive_differential);
