#![no_main]
//! The example event through the fuzz template, with the round-trip oracle.
hardpack_check::fuzz_typed!(libfuzzer, hardpack_check_example::Event, roundtrip);
