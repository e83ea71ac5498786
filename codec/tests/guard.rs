//! `validate` as a guard in front of a decoder that recurses: a payload that overflows
//! rmp-serde's stack is refused by `validate` before it gets there.

use std::process::Command;

use hardpack::{validate, Limit};

/// A stack small enough that rmp-serde's recursion (one set of frames per level, up to its
/// own depth limit of 1024) overflows it in debug and release builds alike.
const SMALL_STACK: usize = 64 * 1024;
const CHILD_ENV: &str = "HARDPACK_GUARD_CHILD";

fn bomb() -> Vec<u8> {
    let mut bytes = vec![0x91u8; 1000];
    bytes.push(0xc0);
    bytes
}

/// Run only as a child of the test below (it is expected to abort the process).
#[test]
#[ignore = "run by validate_refuses_what_overflows_rmp_serde in a child process"]
fn rmp_serde_on_a_small_stack() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let bytes = bomb();
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let _ = rmp_serde::from_slice::<rmpv::Value>(&bytes);
        })
        .expect("spawn")
        .join()
        .expect("the decode thread returned");
}

#[test]
fn validate_refuses_what_overflows_rmp_serde() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "rmp_serde_on_a_small_stack",
            "--nocapture",
        ])
        .env(CHILD_ENV, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("overflowed its stack"),
        "rmp-serde was expected to overflow a {SMALL_STACK}-byte stack on 1,000 nested arrays: \
         {:?}\n{stderr}",
        out.status
    );
    // The guard: refused at the depth limit, before any decoder recurses.
    let err = validate(&bomb()).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth));
    assert_eq!((err.offset(), err.depth()), (128, 128));
}
