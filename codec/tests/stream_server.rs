//! The example server (examples/stream_server.rs, compiled in here as a module) on a local
//! port: hostile clients get an error line and are dropped; the server stays up and answers
//! the next good client.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[path = "../examples/stream_server.rs"]
mod server;

mod common;

/// How a client sends its bytes.
#[derive(Clone, Copy, Debug)]
enum Send {
    Whole,
    ByteByByte,
}

/// Sends `bytes`, closes the sending side, and returns every line the server answered.
async fn client(addr: std::net::SocketAddr, bytes: Vec<u8>, send: Send) -> Vec<String> {
    let socket = TcpStream::connect(addr).await.expect("the server is up");
    let (read, mut write) = socket.into_split();
    let writer = tokio::spawn(async move {
        // A write fails when the server closed the connection after refusing: that is an
        // answer, read below.
        match send {
            Send::Whole => {
                let _ = write.write_all(&bytes).await;
            }
            Send::ByteByByte => {
                for byte in bytes {
                    if write.write_all(&[byte]).await.is_err() || write.flush().await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = write.shutdown().await;
    });
    let mut lines = BufReader::new(read).lines();
    let mut answers = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await {
            Ok(Ok(Some(line))) => answers.push(line),
            Ok(Ok(None)) | Ok(Err(_)) => break,
            Err(_) => panic!("no answer within a minute: {answers:?}"),
        }
    }
    writer.await.ok();
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_survives_the_hostile_corpus_and_answers_the_next_client() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server::serve(listener));

    let mut bomb = vec![0x91u8; 100_000];
    bomb.push(0xc0);
    let slow_str = [&[0xd9, 200][..], &[b'x'; 200]].concat();
    let named: Vec<(Vec<u8>, Send, &str)> = vec![
        (bomb, Send::Whole, "error nesting depth 129 exceeds max_depth 128"),
        (vec![0xdb, 0xff, 0xff, 0xff, 0xff], Send::Whole, "error str length 4294967295 exceeds max_str_len"),
        // 2^20 elements need 2^20 more bytes: more than the server holds for a value.
        (vec![0xdd, 0x00, 0x10, 0x00, 0x00], Send::ByteByByte, "error the value needs at least 1048581 bytes held at once, more than max_buffer_bytes 1048576"),
        (vec![0x01, 0xc1, 0x02], Send::Whole, "error reserved marker 0xc1 at byte 1"),
        (slow_str, Send::ByteByByte, "ok 202"),
        (vec![0x93, 0x01], Send::ByteByByte, "error unexpected end of input"),
    ];
    let mut clients = Vec::new();
    for (bytes, send, expected) in named {
        clients.push(tokio::spawn(async move {
            let answers = client(addr, bytes, send).await;
            let last = answers.last().cloned().unwrap_or_default();
            assert!(
                last.starts_with(expected),
                "{send:?}: {answers:?}, expected {expected:?}"
            );
        }));
    }
    // Every attack the other surfaces are tested on: answered (values, then at most one
    // error), never a hang or a dropped server.
    for attack in common::attacks().into_iter().filter(|a| !a.is_empty()) {
        clients.push(tokio::spawn(async move {
            let answers = client(addr, attack, Send::Whole).await;
            assert!(!answers.is_empty(), "an attack got no answer");
            let errors = answers.iter().filter(|a| a.starts_with("error")).count();
            assert!(
                errors <= 1
                    && answers
                        .iter()
                        .all(|a| a.starts_with("ok") || a.starts_with("error")),
                "{answers:?}"
            );
        }));
    }
    for client in clients {
        client.await.expect("a client's checks");
    }

    // The next good client is answered, value by value.
    let good = [
        hardpack::encode(&hardpack::Value::from("hello")).unwrap(),
        vec![0x92, 0x01, 0x02],
        vec![0xc3],
    ]
    .concat();
    let answers = client(addr, good, Send::ByteByByte).await;
    assert_eq!(answers, ["ok 6", "ok 9", "ok 10"]);
}
