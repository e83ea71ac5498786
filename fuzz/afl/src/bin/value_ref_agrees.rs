//! AFL++ entry for the `value_ref_agrees` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, value_ref_agrees);
