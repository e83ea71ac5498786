//! AFL++ entry for the `tokens_roundtrip` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, tokens_roundtrip);
