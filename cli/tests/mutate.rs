//! `hardpack mutate`: captured messages in, the attacks on each node out, for a decoder in
//! any language.

use std::path::PathBuf;
use std::process::{Command, Output};

fn hardpack(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-mutate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `{"len": 3, "body": "héllo"}`
const MESSAGE: &[u8] = &[
    0x82, 0xa3, b'l', b'e', b'n', 0x03, 0xa4, b'b', b'o', b'd', b'y', 0xa6, b'h', 0xc3, 0xa9, b'l',
    b'l', b'o',
];

#[test]
fn a_captured_message_becomes_a_directory_of_attacks_each_in_its_place() {
    let dir = scratch("write");
    let message = dir.join("upload.mp");
    std::fs::write(&message, MESSAGE).unwrap();
    let out_dir = dir.join("payloads");
    let out = hardpack(&[
        "mutate",
        message.to_str().unwrap(),
        "--write",
        out_dir.to_str().unwrap(),
        "--depth",
        "1000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = out_dir.join("upload.mp");
    // The largest u32 where the message has its len, the rest as it was.
    let claim = std::fs::read(written.join("upload.mp.len.int-u32-max")).unwrap();
    assert_eq!(&claim[..5], &MESSAGE[..5]);
    assert_eq!(&claim[5..10], &[0xce, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(&claim[10..], &MESSAGE[6..]);
    // A 4 GiB claim at the str, which hardpack refuses in its place.
    let str_claim = std::fs::read(written.join("upload.mp.body.str32-max")).unwrap();
    let err = hardpack::decode(&str_claim).unwrap_err();
    assert_eq!(err.offset(), 11, "{err}");
    // The message itself, and a million-deep nesting cut to the depth asked.
    assert_eq!(
        std::fs::read(written.join("upload.mp.valid")).unwrap(),
        MESSAGE
    );
    let nested = std::fs::read(written.join("upload.mp.unknown-key-nested")).unwrap();
    assert!(
        nested.len() > 1000 && nested.len() < 1100,
        "{}",
        nested.len()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("from 1 messages"), "{stderr}");
}

#[test]
fn the_list_is_json_a_parser_reads() {
    let dir = scratch("json");
    let message = dir.join("m");
    std::fs::write(&message, MESSAGE).unwrap();
    let out = hardpack(&[
        "mutate",
        message.to_str().unwrap(),
        "--json",
        "--depth",
        "10",
    ]);
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = list.as_array().unwrap();
    assert!(list.len() > 30, "{}", list.len());
    assert!(list
        .iter()
        .any(|p| p["id"] == "m.body.str32-max" && p["place"] == "m.body" && p["offset"] == 11));
}

#[test]
fn a_file_that_is_not_one_message_is_refused_naming_it_and_the_byte() {
    let dir = scratch("bad");
    for (name, bytes, says) in [
        ("reserved", &[0xc1][..], "0xc1 at byte 0"),
        ("empty", &[][..], "it is empty"),
        (
            "two",
            &[0x01, 0x02][..],
            "1 bytes after the value ending at byte 1",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = hardpack(&["mutate", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(name) && stderr.contains(says), "{stderr}");
    }
}
