//! AFL++ entry for the `decode` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, decode);
