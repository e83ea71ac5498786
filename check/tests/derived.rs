//! A type that derives both serde's traits and hardpack's: the kit traces it through serde and
//! brings the same attacks to the derive path (`hardpack::derive::from_slice`), which holds
//! under them as the serde path does.

use hardpack_check::{check, CountingAlloc, Outcome};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[allow(dead_code)]
#[derive(serde::Serialize, serde::Deserialize, hardpack::Encode, hardpack::Decode, Debug)]
enum Part {
    Leaf,
    Boxed(Box<Part>),
    List(Vec<Part>),
    Named { name: String, weight: u32 },
}

#[allow(dead_code)]
#[derive(serde::Serialize, serde::Deserialize, hardpack::Encode, hardpack::Decode, Debug)]
struct Order {
    id: u64,
    parts: Vec<Part>,
    note: Option<String>,
}

#[test]
fn the_derive_path_is_hardened_under_the_kit_s_attacks() {
    let report = check::<Order>()
        .decoder("hardpack derive", |bytes: &[u8]| {
            hardpack::derive::from_slice::<Order>(bytes)
        })
        .run();
    report.assert_hardened();
    assert!(
        report.text().contains("hardpack derive"),
        "{}",
        report.text()
    );
    // Every nesting attack refused at the depth limit, on the derive path too.
    let nested: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.id.ends_with(".nested"))
        .collect();
    assert!(!nested.is_empty(), "{}", report.text());
    for row in nested {
        assert!(
            matches!(&row.outcome, Outcome::Refused(m) if m.contains("max_depth")),
            "{row:?}"
        );
    }
}
