//! The logic of the `hardpack` command, kept out of `main.rs` so it is tested: allocation
//! audits run in child processes, limit sweeps, the HTML report, and side-by-side decoding
//! with other MessagePack implementations.

pub mod audit;
pub mod compare;
pub mod html;
