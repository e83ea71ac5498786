//! AFL++ entry for the `model_agrees` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, model_agrees);
