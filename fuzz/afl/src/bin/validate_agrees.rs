//! AFL++ entry for the `validate_agrees` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, validate_agrees);
