//! AFL++ entry for the `differential_rmpv` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, differential_rmpv);
