//! AFL++ entry for the `strict` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, strict);
