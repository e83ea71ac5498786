#![no_main]
//! libFuzzer entry for the `stream_split` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, stream_split);
