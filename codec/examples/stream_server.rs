//! A TCP server that decodes MessagePack values from each connection as they arrive, with
//! `hardpack::stream::Codec` under `FramedRead`, and answers each value with a line: `ok <bytes>`
//! (the stream offset after it), or `error <message>` before it closes a connection that
//! sent something it refuses. Hostile clients (bombs, huge headers, one byte at a time,
//! garbage) cost it at most the limits, and the other clients do not notice them.
//!
//! ```text
//! cargo run -p hardpack --example stream_server --features tokio -- 127.0.0.1:7000
//! printf '\x92\x01\xa1x' | nc 127.0.0.1 7000     # -> ok 4
//! ```

use std::time::Duration;

use futures_util::StreamExt;
use hardpack::{stream::Codec, Decoder, Limits, StreamDecoder};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::FramedRead;

/// The most a connection may hold for one value that has not arrived whole.
pub const MAX_BUFFER_BYTES: usize = 1 << 20;

/// How long a connection may send nothing before it is closed.
pub const IDLE: Duration = Duration::from_secs(10);

/// Serves connections from `listener` until the process ends.
pub async fn serve(listener: TcpListener) {
    loop {
        match listener.accept().await {
            Ok((socket, _)) => {
                tokio::spawn(connection(socket));
            }
            // Out of file descriptors or similar: wait, and go on serving.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Decodes one connection's values, answering each; closes it after the first error.
async fn connection(socket: TcpStream) {
    let (read, mut write) = socket.into_split();
    let stream =
        StreamDecoder::new(Decoder::new(Limits::default())).with_max_buffer_bytes(MAX_BUFFER_BYTES);
    let mut values = FramedRead::new(read, Codec::with_stream(stream));
    loop {
        let reply = match tokio::time::timeout(IDLE, values.next()).await {
            Err(_) => "error idle for too long\n".to_string(),
            Ok(None) => return,
            Ok(Some(Ok(_value))) => {
                format!("ok {}\n", values.decoder().stream().consumed())
            }
            Ok(Some(Err(e))) => format!("error {e}\n"),
        };
        let failed = reply.starts_with("error");
        if write.write_all(reply.as_bytes()).await.is_err() || failed {
            return;
        }
    }
}

#[tokio::main(flavor = "current_thread")]
#[allow(dead_code)]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:7000".to_string());
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("decoding MessagePack on {}", listener.local_addr()?);
    serve(listener).await;
    Ok(())
}
