//! The logic of the `hardpack` command, kept out of `main.rs` so it is tested: reproducing a
//! payload, allocation audits in child processes, limit sweeps,
//! side-by-side decoding with other MessagePack implementations, and any decoding program in
//! any language run per payload and judged (`exec`, `exec_report`). It uses the fuzz harness
//! only to run a target (`repro --target`) and to count allocations.

pub mod audit;
pub mod compare;
#[cfg(unix)]
pub mod exec;
#[cfg(unix)]
pub mod exec_report;
pub mod limit_flags;
pub mod repro;
#[cfg(unix)]
pub mod spawner;
pub mod units;
