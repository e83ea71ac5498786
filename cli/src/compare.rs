//! `hardpack repro --compare`: the same payload decoded by hardpack, rmpv (`read_value` and the
//! borrowing `read_value_ref`) and rmp-serde (into `serde_json::Value`, and into the typed
//! surface's schema), each
//! in a guarded child process (8 MiB stack, memory cap, time limit), side by side.

use std::path::Path;
use std::time::Duration;

use hardpack_harness::alloc_meter;
use serde::{Deserialize, Serialize};

use hardpack_check::guard::{run_guarded, ChildLimits};

/// The implementations `peer-decode` knows: rmpv's owned and borrowed readers, rmp-serde
/// into `serde_json::Value`, and rmp-serde into the schema `--surface typed` uses.
pub const PEERS: [&str; 4] = ["rmpv", "rmpv-ref", "rmp-serde", "rmp-serde-typed"];

/// What one implementation did with the payload.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PeerResult {
    /// Which implementation.
    pub implementation: String,
    /// `decoded`, `rejected` or `crashed`.
    pub status: String,
    /// The error, or why the process died.
    pub detail: String,
    /// Heap bytes at peak (0 when it crashed).
    pub peak_heap_bytes: usize,
    /// Decode time in microseconds.
    pub elapsed_us: f64,
}

/// Decodes `payload` with a peer in this process, measured (run by the hidden `peer-decode`
/// subcommand inside a guarded child).
pub fn decode_in_process(implementation: &str, payload: &[u8]) -> Result<PeerResult, String> {
    let (result, cost) = match implementation {
        "rmpv" => alloc_meter::measure(|| {
            rmpv::decode::read_value(&mut &payload[..])
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        "rmpv-ref" => alloc_meter::measure(|| {
            rmpv::decode::read_value_ref(&mut &payload[..])
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        "rmp-serde-typed" => alloc_meter::measure(|| {
            rmp_serde::from_slice::<hardpack_harness::schema::Any>(payload)
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        "rmp-serde" => alloc_meter::measure(|| {
            rmp_serde::from_slice::<serde_json::Value>(payload)
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        other => {
            return Err(format!(
                "unknown implementation {other:?}; one of {PEERS:?}"
            ))
        }
    };
    Ok(PeerResult {
        implementation: implementation.to_string(),
        status: if result.is_ok() {
            "decoded"
        } else {
            "rejected"
        }
        .to_string(),
        detail: result.err().unwrap_or_default(),
        peak_heap_bytes: cost.peak_bytes,
        elapsed_us: cost.elapsed.as_secs_f64() * 1e6,
    })
}

/// Runs every peer on `path` in its own guarded child process.
pub fn compare_peers(
    exe: &Path,
    path: &Path,
    memory_bytes: usize,
) -> Result<Vec<PeerResult>, String> {
    let guard = ChildLimits {
        memory_bytes,
        timeout: Duration::from_secs(30),
    };
    PEERS
        .iter()
        .map(|peer| {
            let args = vec![
                "peer-decode".to_string(),
                peer.to_string(),
                path.display().to_string(),
            ];
            let (code, stdout) = run_guarded(exe, &args, &guard)?;
            Ok(
                match (code, serde_json::from_slice::<PeerResult>(&stdout)) {
                    (Ok(0), Ok(result)) => result,
                    (code, _) => PeerResult {
                        implementation: peer.to_string(),
                        status: "crashed".to_string(),
                        detail: match code {
                            Ok(c) => format!("exit status {c}"),
                            Err(why) => why,
                        },
                        peak_heap_bytes: 0,
                        elapsed_us: 0.0,
                    },
                },
            )
        })
        .collect()
}
