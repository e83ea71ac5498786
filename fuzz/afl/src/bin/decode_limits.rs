//! AFL++ entry for the `decode_limits` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, decode_limits);
