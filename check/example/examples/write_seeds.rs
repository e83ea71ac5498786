//! Writes the fuzz seeds of the example types, as a team writes its own once:
//! `cargo run -p hardpack-check-example --example write_seeds -- DIR` fills DIR/config,
//! DIR/rpc_request, DIR/event and DIR/chunk (the targets of `check/example/fuzz`).

use std::path::PathBuf;

use hardpack_check::write_seeds;
use hardpack_check_example::{Chunk, Config, Event, RpcRequest};

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "corpus".into()));
    let written = [
        ("config", write_seeds::<Config>(dir.join("config"))?),
        (
            "rpc_request",
            write_seeds::<RpcRequest>(dir.join("rpc_request"))?,
        ),
        ("event", write_seeds::<Event>(dir.join("event"))?),
        ("chunk", write_seeds::<Chunk>(dir.join("chunk"))?),
    ];
    for (target, n) in written {
        eprintln!("{n} seeds for {target} in {}", dir.join(target).display());
    }
    Ok(())
}
