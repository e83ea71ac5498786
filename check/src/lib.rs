//! Harden your own MessagePack types and decoders.
//!
//! hardpack proves that hardpack cannot be knocked over; this crate is the same suite for
//! your code: the hostile payloads (recursion bombs, headers claiming 4 GiB, amplification)
//! as a library, to run against any decoder of any type.
//!
//! ```
//! let payloads = hardpack_check::generic();
//! let bomb = payloads.iter().find(|p| p.id == "bomb-arrays-129").unwrap();
//! assert_eq!(bomb.bytes.len(), 130);
//! // hardpack refuses it at its depth limit; so should your decoder.
//! let err = hardpack::decode(&bomb.bytes).unwrap_err();
//! assert_eq!(err.limit(), Some(hardpack::Limit::Depth));
//! ```

// The counting allocator implements `GlobalAlloc`, which is unsafe to implement; nothing
// else in the crate is.
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[allow(unsafe_code)]
pub mod alloc;
mod generic;
mod payload;
mod report;
mod run;
pub mod shape;
mod typed;

pub use alloc::CountingAlloc;
pub use generic::generic;
pub use payload::Payload;
pub use report::{human_bytes, Outcome, Report, Row};
pub use run::{check, Check, DEFAULT_HEAP_CEILING, DEFAULT_STACK_BYTES, DEFAULT_TIME_LIMIT};
pub use typed::{for_type, from_shape, payloads_for, RECURSION_DEPTH};
