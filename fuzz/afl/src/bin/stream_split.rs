//! AFL++ entry for the `stream_split` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(afl, stream_split);
