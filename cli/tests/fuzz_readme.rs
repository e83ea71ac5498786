//! fuzz/README.md's table of targets is generated from `hardpack targets --json`, so it cannot
//! drift from `TARGETS`. `HARDPACK_BLESS=1 cargo test -p hardpack-cli --test fuzz_readme`
//! rewrites it.

use std::path::Path;
use std::process::Command;

const START: &str =
    "<!-- targets: generated from `hardpack targets --json`; cli/tests/fuzz_readme.rs checks it -->\n";
const END: &str = "<!-- end targets -->\n";

/// The markdown table of the targets `hardpack targets --json` lists.
fn table_from_the_command() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["targets", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "hardpack targets --json failed");
    let targets: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!targets.is_empty());
    let mut table = String::from("| target | input | what it checks |\n|---|---|---|\n");
    for t in &targets {
        let input = if t["structured"] == true {
            "an `arbitrary` description"
        } else {
            "MessagePack bytes"
        };
        let checks = t["checks"].as_str().unwrap().replace('|', "\\|");
        table.push_str(&format!(
            "| `{}` | {input} | {checks} |\n",
            t["name"].as_str().unwrap()
        ));
    }
    table
}

#[test]
fn the_fuzz_readme_lists_exactly_the_targets_of_the_harness() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find(START).expect("the table's start marker") + START.len();
    let end = start + readme[start..].find(END).expect("the table's end marker");
    let expected = table_from_the_command();
    if std::env::var_os("HARDPACK_BLESS").is_some() {
        let blessed = format!("{}{expected}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    assert!(
        readme[start..end] == expected,
        "fuzz/README.md's target table differs from `hardpack targets --json`; rewrite it with \
         HARDPACK_BLESS=1 cargo test -p hardpack-cli --test fuzz_readme"
    );
}
