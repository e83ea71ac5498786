//! Internally and adjacently tagged message types copied from public projects that decode
//! MessagePack, checked as their users would (`check::<T>().run()`, no samples): every
//! variant, renamed as the project renames it, is a line of the ledger, and each type is
//! hardened under hardpack. None holds a field the tracer cannot build.

use hardpack_check::{check, CountingAlloc, Report};
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A mixing desk's remote control: struct variants renamed to snake case by hand.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
enum Command {
    #[serde(rename = "set_fader")]
    ChangeFader { name: String, value: f64 },
    #[serde(rename = "trigger_button")]
    TriggerButton { name: String },
}

/// A chat relay's frame header: unit variants tagged by words that read as numbers.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "type")]
enum DataType {
    #[serde(rename = "0")]
    Beat,
    #[serde(rename = "1")]
    Msg,
    #[serde(rename = "2")]
    Binary,
}

#[derive(Debug, Deserialize, Serialize)]
struct MsgHead {
    length: u32,
    r#type: DataType,
    to_server: bool,
    receiver: Option<Vec<String>>,
}

/// A note-taking app's server response: adjacently tagged, renamed by `rename_all`.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "type", content = "data")]
#[serde(rename_all = "snake_case")]
enum Response {
    Unknown(String),
}

/// A key-value store's command.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "op")]
enum KvCommand {
    Set { key: String, value: String },
    Remove { key: String },
}

/// Checks `T` as its users would: its variant lines are `variants` (by name, in the
/// ledger's order), and it is hardened.
fn assert_hardened_with_variants<T>(variants: &[&str])
where
    T: for<'de> Deserialize<'de> + 'static,
{
    let report: Report = check::<T>().run();
    let lines: Vec<&str> = report
        .ledger
        .lines
        .iter()
        .filter(|l| l.variant)
        .map(|l| l.name())
        .collect();
    assert_eq!(lines, variants, "{}", report.text());
    assert!(report.is_hardened(), "{}", report.text());
}

// One check per test: a check's children run the test again.

#[test]
fn variants_renamed_by_hand_are_each_a_closed_line() {
    assert_hardened_with_variants::<Command>(&["::set_fader", "::trigger_button"]);
}

#[test]
fn tags_that_read_as_numbers_are_variants_not_indexes() {
    assert_hardened_with_variants::<MsgHead>(&[
        "MsgHead.type::0",
        "MsgHead.type::1",
        "MsgHead.type::2",
    ]);
}

#[test]
fn an_adjacently_tagged_variant_renamed_by_rename_all_is_a_closed_line() {
    assert_hardened_with_variants::<Response>(&["Response::unknown"]);
}

#[test]
fn an_op_tagged_command_is_hardened_with_both_variants() {
    assert_hardened_with_variants::<KvCommand>(&["::Remove", "::Set"]);
}
