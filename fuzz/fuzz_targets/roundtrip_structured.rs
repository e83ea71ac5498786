#![no_main]
//! libFuzzer entry for the `roundtrip_structured` target (defined in hardpack_harness::targets).
hardpack_harness::fuzz_entry!(libfuzzer, roundtrip_structured);
