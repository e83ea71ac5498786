//! AFL++ entry for the `encode_deep` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, encode_deep);
