#![no_main]
//! The upload chunk through the fuzz template: its hand-written `Deserialize` allocates the
//! buffer its `len` asks for, which this target finds from the seeds.
hardpack_check::fuzz_typed!(libfuzzer, hardpack_check_example::Chunk);
