//! The fuzz targets of hardpack, defined once, and the allocation meter they use.
//!
//! libFuzzer (`fuzz/fuzz_targets/`), AFL (`fuzz/afl/`), the regression replay
//! (`regression/`) and `hardpack repro` all call [`targets`], so an input replays the same
//! everywhere.

pub mod alloc_meter;
pub mod repro;
pub mod structured;
pub mod targets;

pub use targets::{target, Outcome, Target, TARGETS};
